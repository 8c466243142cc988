//! One way from flags to a scheduled cluster: [`ClusterArgs`] (the manifests or live cluster
//! read, the scheduler's knobs and the admission plugins) turns a command's arguments into
//! what every command that reads a cluster uses — the objects read ([`ClusterArgs::load`]),
//! the cluster built from them ([`ClusterArgs::build`]), or a what-if session on the cluster as
//! it would run ([`ClusterArgs::session`]) — printing the warnings of each stage on stderr.
//! Also the what-ifs' shared flags ([`CaFlags`]) and clock ([`now_unix`]).

use clap::Args;
use repel_core::admission::AdmissionConfig;
use repel_engine::drain::ca;
use repel_engine::load::{Built, ClusterInput, build_cluster};
use repel_engine::whatif::{Judge, Session, SessionOptions, Workload};

use crate::output::warn_all;
use crate::{AdmissionFlags, CliError, Inputs, SchedulerFlags};
use repel_manifest::Inventory;

/// The flags of a command that reads a cluster: inputs, scheduler and admission.
#[derive(Debug, Args, Clone)]
pub struct ClusterArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    #[command(flatten)]
    pub scheduler: SchedulerFlags,
    #[command(flatten)]
    pub admission: AdmissionFlags,
}

/// What [`ClusterArgs::load`] read: the objects, and the admission plugins they pass.
#[derive(Debug)]
pub struct Loaded {
    /// The objects read.
    pub inventory: Inventory,
    /// The admission configuration of the flags.
    pub admission: AdmissionConfig,
}

impl ClusterArgs {
    /// The admission configuration of the flags (a bad flag is an error before anything is
    /// read), then the manifests for `command`, names generated from `--seed`; the reader's
    /// warnings printed.
    pub fn load(&self, command: &str) -> Result<Loaded, CliError> {
        let admission = self.admission.config()?;
        let inventory = self.inputs.load_seeded(command, self.scheduler.seed)?;
        warn_all(&inventory.warnings);
        Ok(Loaded {
            inventory,
            admission,
        })
    }

    /// The cluster built from `input` ([`build_cluster`]: defaulting, admission, workload pods,
    /// indexes), its pending pods not yet scheduled; the build's warnings printed.
    pub fn build(&self, input: ClusterInput, admission: &AdmissionConfig) -> Built {
        let built = build_cluster(
            input,
            &self.inputs.feature_gates,
            admission,
            self.scheduler.seed,
        );
        warn_all(&built.warnings);
        built
    }

    /// A what-if session on the cluster built from `input` as it would run (its pending pods
    /// placed by the compiled scheduler (`FastScheduler`), [`Session::new`]), for `judge`; the build's warnings
    /// printed.
    pub fn session(
        &self,
        input: ClusterInput,
        admission: &AdmissionConfig,
        judge: Judge,
    ) -> Session {
        let opts = SessionOptions {
            gates: self.inputs.feature_gates,
            admission: admission.clone(),
            seed: self.scheduler.seed,
            percentage_of_nodes_to_score: self.scheduler.percentage_of_nodes_to_score,
            now_unix: now_unix(),
        };
        let session = Session::new(input, &opts, judge);
        warn_all(&session.built.warnings);
        session
    }
}

/// cluster-autoscaler's flags that change a drain's judgement (`drain`, `consolidate`).
#[derive(Debug, Args)]
pub struct CaFlags {
    /// cluster-autoscaler: --skip-nodes-with-system-pods (default true).
    #[arg(long = "skip-nodes-with-system-pods", default_value_t = true, action = clap::ArgAction::Set)]
    pub skip_nodes_with_system_pods: bool,
    /// cluster-autoscaler: --skip-nodes-with-local-storage (default true).
    #[arg(long = "skip-nodes-with-local-storage", default_value_t = true, action = clap::ArgAction::Set)]
    pub skip_nodes_with_local_storage: bool,
    /// cluster-autoscaler: --skip-nodes-with-custom-controller-pods (default true).
    #[arg(long = "skip-nodes-with-custom-controller-pods", default_value_t = true, action = clap::ArgAction::Set)]
    pub skip_nodes_with_custom_controller_pods: bool,
}

impl CaFlags {
    /// cluster-autoscaler's options, with the workload objects its listers find.
    pub fn options(&self, controllers: &[Workload]) -> ca::Options {
        ca::Options {
            skip_nodes_with_system_pods: self.skip_nodes_with_system_pods,
            skip_nodes_with_local_storage: self.skip_nodes_with_local_storage,
            skip_nodes_with_custom_controller_pods: self.skip_nodes_with_custom_controller_pods,
            controllers: controllers.iter().cloned().collect(),
            ..Default::default()
        }
    }
}

/// The time of a what-if, Unix seconds.
pub fn now_unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
