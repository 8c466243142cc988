//! kube-apiserver's `--enable-admission-plugins` and `--disable-admission-plugins`, shared by
//! every command that admits pods (`admit`, `schedule`, `explain`, `simulate`, `test`, `serve`).

use clap::Args;
use repel_core::admission::AdmissionConfig;

use crate::CliError;
use crate::output::warn_all;

/// Which admission plugins run, in kube-apiserver's flag syntax.
#[derive(Debug, Args, Clone, Default)]
pub struct AdmissionFlags {
    /// Admission plugins to turn on, comma-separated, as kube-apiserver's flag: `ExtendedResourceToleration` (off by default, as upstream). DefaultTolerationSeconds and PodTolerationRestriction are on already.
    #[arg(
        long = "enable-admission-plugins",
        value_name = "PLUGIN,...",
        value_delimiter = ','
    )]
    pub enable: Vec<String>,
    /// Admission plugins to turn off, comma-separated, as kube-apiserver's flag: `DefaultTolerationSeconds`, `PodTolerationRestriction`.
    #[arg(
        long = "disable-admission-plugins",
        value_name = "PLUGIN,...",
        value_delimiter = ','
    )]
    pub disable: Vec<String>,
}

impl AdmissionFlags {
    /// The admission configuration: repel's default with the flags applied. An unknown plugin,
    /// or one named in both flags, is a usage error (exit 2) with kube-apiserver's message; an
    /// upstream plugin repel does not model is accepted with a warning.
    pub fn config(&self) -> Result<AdmissionConfig, CliError> {
        let mut cfg = AdmissionConfig::default();
        self.apply(&mut cfg)?;
        Ok(cfg)
    }

    /// [`AdmissionFlags::config`] on top of an existing configuration.
    pub fn apply(&self, cfg: &mut AdmissionConfig) -> Result<(), CliError> {
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
