//! The manifest reader `repel check|explain|schedule|… -f FILE` uses: the bytes are one file's
//! text, read as [`repel_manifest::Inventory::load_seeded`] reads a file (documents, `kind:
//! List` items, typed objects, unknown and repeated fields), then handed over as the cluster
//! input. A file that is not UTF-8 is refused before parsing, as `read_text` does.

use repel_manifest::{
    Inventory, Validate, answer_strict, for_each_object, item_duplicates, parse_documents,
};

/// The target body.
pub fn run(data: &[u8]) {
    let Some(text) = crate::text(data) else {
        return;
    };
    let file = "fuzz.yaml";
    let docs = match parse_documents(file, text) {
        Ok(docs) => docs,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let mut inv = Inventory::with_seed(0);
    for doc in &docs {
        // The CLI stops at the first error; going on reads every document.
        let read = for_each_object(file, doc, |source, v| {
            let duplicates = item_duplicates(doc, source.item);
            inv.add_with_duplicates(source, v, duplicates)
        });
        if let Err(e) = read {
            let _ = e.to_string();
        }
    }
    inv.finish(false);
    for report in &inv.strict {
        let _ = report.kubectl_error();
        let _ = report.warning();
    }
    let _ = answer_strict(&inv.strict, Validate::Strict);
    let _ = inv.is_empty();
    let _ = inv.into_cluster_input();
}
