//! The page: one self-contained HTML file — inline CSS and JavaScript, the model embedded as
//! JSON, the timeline drawn as inline SVG, nothing fetched when it is viewed (it opens from a
//! mail attachment or a CI artifact).
//!
//! Rendering approach, chosen as cargo's `--timings` page does it: plain `write!`/`format!`
//! of a fixed skeleton, the model as JSON in a `<script type="application/json">`, and one
//! inlined script (`page.js`, with `page.css`, included at build time) that draws every
//! section from the model. A typed template engine (askama, maud) would check a skeleton
//! that has one variable part, the JSON, and would add a dependency and a second place
//! where the sections are drawn; the script is needed anyway (filters, sorting, the timeline's
//! links), so it draws everything, and the page's DOM is that of one program. The one escape
//! the skeleton needs is the JSON's `</` (written `<\/`, the same string to JSON) and the
//! title's text ([`escape`]).
//!
//! The DOM contract (for anyone testing the page): matrix cells carry `data-workload`
//! (`Kind/ns/name`), `data-pool`, `data-verdict` (`lands|avoided|blocked|no-room`) and, when
//! blocked by a taint, `data-taint` (`key=value:Effect`); timeline marks carry `data-pod`
//! (`ns/name`) or `data-node`, `data-event` (the reason) and `data-at` (seconds); inventory
//! rows carry `data-pool` and `data-taint`. `<body data-ready="true">` once the script has
//! drawn everything; `#errors` holds any script error (empty when none).

use crate::model::Report;

/// The page's stylesheet.
const CSS: &str = include_str!("page.css");
/// The page's script: draws the model.
const JS: &str = include_str!("page.js");

/// HTML-escapes text for an element's content or an attribute value.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The model as JSON safe inside a `<script>` element: `</` written `<\/` (so no `</script>`
/// or `<!--` closes or changes the element), the same string to a JSON parser.
pub fn script_json(report: &Report) -> String {
    serde_json::to_string(report)
        .unwrap_or_else(|_| "{}".to_string())
        .replace("</", "<\\/")
        .replace("<!--", "<\\u0021--")
}

/// The page of `report`.
pub fn page(report: &Report) -> String {
    page_with(report, "")
}

/// The page of `report`, with `extra` (a script) appended: `repel serve`'s `/ui/` adds the
/// polling that keeps it current.
pub fn page_with(report: &Report, extra: &str) -> String {
    let title = if report.source.is_empty() {
        "repel report".to_string()
    } else {
        format!("repel report — {}", report.source)
    };
    let timeline_nav = if report.timeline_end.is_some() {
        r##"<a href="#timeline">timeline</a>"##
    } else {
        ""
    };
    format!(
        r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="repel {version}">
<title>{title}</title>
<style>
{CSS}</style>
</head>
<body data-ready="false">
<header>
<h1>Taints and tolerations: which workload lands on which pool, and why</h1>
<div class="muted">repel report of <span id="source"></span> · <span id="summary"></span></div>
<nav aria-label="sections"><a href="#inventory">taints</a><a href="#matrix-section">pools × workloads</a><a href="#coverage">DaemonSets</a><a href="#drain">drains</a><a href="#findings">findings</a>{timeline_nav}</nav>
</header>
<div id="errors" role="alert"></div>
<main>
<section id="inventory"><h2>1. Taint inventory</h2>
<p class="muted">Each pool with its taints, how many of its nodes carry each, and which workloads tolerate it.</p>
<div id="inventory-table" class="scroll"></div></section>
<section id="matrix-section"><h2>2. Pools × workloads</h2>
<p class="legend"><span class="v-lands">✓ lands</span><span class="v-avoided">~ avoided (PreferNoSchedule, preferred affinity)</span><span class="v-blocked">✕ blocked (a taint, the selector or affinity)</span><span class="v-no-room">□ no room (the rules let it in, the resources do not)</span></p>
<div class="controls"><label>namespace <select id="ns"><option value="">all</option></select></label>
<label>filter <input id="q" type="search" placeholder="workload or taint"></label>
<span id="matrix-count" class="muted"></span></div>
<p class="muted">Click a cell (or move with the arrow keys and press Enter) for the reason and the toleration to paste; click a column header to sort.</p>
<div id="details" aria-live="polite"></div>
<div id="matrix-table" class="scroll"></div>
<button id="more" type="button" class="more">show more</button></section>
<section id="coverage"><h2>3. DaemonSet coverage</h2><div id="coverage-table" class="scroll"></div></section>
<section id="drain"><h2>4. Drain readiness</h2>
<p class="muted">Each node judged alone against the cluster as it would run: <code>kubectl drain --ignore-daemonsets</code>, cluster-autoscaler's scale-down (default flags), Karpenter's disruption.</p>
<div id="drain-table"></div></section>
<section id="findings"><h2>5. Lint findings</h2><div id="findings-table" class="scroll"></div></section>
<section id="timeline"><h2>6. Scenario timeline</h2>
<p class="muted">One lane per node: pods' lifetimes (bars), events (marks; red: a taint eviction, its dashed line the tolerationSeconds it waited; blue: a scenario step). Click a mark or a row to find the other.</p>
<div id="gantt"></div><div id="events-table"></div></section>
</main>
<script id="model" type="application/json">{json}</script>
<script>
{JS}</script>{extra}
</body>
</html>
"##,
        version = env!("CARGO_PKG_VERSION"),
        title = escape(&title),
        json = script_json(report),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_json_cannot_close_its_script_element() {
        let r = Report {
            source: "</script><script>alert(1)</script><!--".to_string(),
            ..Default::default()
        };
        let json = script_json(&r);
        assert!(!json.contains("</"), "{json}");
        assert!(!json.contains("<!--"), "{json}");
        let back: Report = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back.source, r.source);
        let page = page(&r);
        assert_eq!(
            page.matches("</script>").count(),
            2,
            "only the page's own two scripts close"
        );
        assert!(page.contains("<title>repel report — &lt;/script&gt;"));
    }

    #[test]
    fn the_page_fetches_nothing() {
        let page = page(&Report::default());
        for needle in [
            "src=",
            "href=\"http",
            "@import",
            "url(",
            "fetch(",
            "XMLHttpRequest",
        ] {
            assert!(!page.contains(needle), "the page holds {needle}");
        }
    }
}
