//! kube-apiserver's `--enable-admission-plugins` and `--disable-admission-plugins`, shared by
//! every command that admits pods (`admit`, `schedule`, `explain`, `simulate`, `test`, `serve`).

use clap::Args;
use repel_core::admission::{ADMISSION_PRESETS, AdmissionConfig};

use crate::CliError;
use crate::output::warn_all;

/// Which admission plugins run, in kube-apiserver's flag syntax.
#[derive(Debug, Args, Clone, Default)]
pub struct AdmissionFlags {
    /// The admission plugins a provider's kube-apiserver runs, before the two flags below: `stock` (the default: kube-apiserver's own), `kubeadm`, `aks` (the same), `eks`, `gke` (ExtendedResourceToleration on).
    #[arg(long = "admission-preset", value_name = "PRESET", value_parser = clap::builder::PossibleValuesParser::new(ADMISSION_PRESETS))]
    pub preset: Option<String>,
    /// Admission plugins to turn on, comma-separated, as kube-apiserver's flag: `PodTolerationRestriction`, `ExtendedResourceToleration` (both off by default, as in stock kube-apiserver). DefaultTolerationSeconds is on already.
    #[arg(
        long = "enable-admission-plugins",
        value_name = "PLUGIN,...",
        value_delimiter = ','
    )]
    pub enable: Vec<String>,
    /// Admission plugins to turn off, comma-separated, as kube-apiserver's flag: `DefaultTolerationSeconds`, or one a preset turned on.
    #[arg(
        long = "disable-admission-plugins",
        value_name = "PLUGIN,...",
        value_delimiter = ','
    )]
    pub disable: Vec<String>,
}

impl AdmissionFlags {
    /// The admission configuration: the preset's (stock kube-apiserver's by default) with the
    /// flags applied. An unknown plugin,
    /// or one named in both flags, is a usage error (exit 2) with kube-apiserver's message; an
    /// upstream plugin repel does not model is accepted with a warning.
    pub fn config(&self) -> Result<AdmissionConfig, CliError> {
        let mut cfg = AdmissionConfig::default();
        self.apply(&mut cfg)?;
        Ok(cfg)
    }

    /// [`AdmissionFlags::config`] on top of an existing configuration.
    /// A preset replaces the plugins `cfg` turns on or off (its settings, such as a scenario's
    /// toleration seconds, stay) before the two flags apply.
    pub fn apply(&self, cfg: &mut AdmissionConfig) -> Result<(), CliError> {
        if let Some(p) = &self.preset {
            let preset = AdmissionConfig::preset(p).ok_or_else(|| {
                CliError::Usage(format!(
                    "--admission-preset {p:?}: one of {}",
                    ADMISSION_PRESETS.join(", ")
                ))
            })?;
            cfg.extended_resource_toleration = preset.extended_resource_toleration;
            cfg.pod_toleration_restriction = preset.pod_toleration_restriction;
            if preset.default_toleration_seconds.is_none() {
                cfg.default_toleration_seconds = None;
            } else if cfg.default_toleration_seconds.is_none() {
                cfg.default_toleration_seconds = preset.default_toleration_seconds;
            }
        }
        let unmodelled = cfg
            .apply_plugin_flags(&self.enable, &self.disable)
            .map_err(|e| CliError::Usage(e.to_string()))?;
        warn_all(
            &unmodelled
                .iter()
                .map(|p| {
                    format!(
                        "admission plugin {p} is not modelled by repel; it changes nothing here"
                    )
                })
                .collect::<Vec<_>>(),
        );
        Ok(())
    }
}
