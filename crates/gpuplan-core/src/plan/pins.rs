//! Settings of `[training]` the user stated: the search keeps them and chooses only the others.
//! A key left out of the workload file is the planner's to choose; a key given is a constraint
//! (the user's cluster runs ZeRO-3, their framework has no context parallelism). A plan's own
//! `setup` fed back as `[training]` therefore reproduces that plan.

use serde::{Deserialize, Serialize};

/// Which search dimensions the workload fixes (`true`: the setup's value is kept).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainPins {
    pub tp: bool,
    pub pp: bool,
    pub cp: bool,
    pub ep: bool,
    pub zero: bool,
    pub micro_batch: bool,
    pub recompute: bool,
    pub sequence_parallel: bool,
    pub virtual_stages: bool,
    /// The user named the stack: `--profile`, `--deepspeed` or `[training] framework` /
    /// `deepspeed = true`. Not a search dimension (not in [`PIN_KEYS`]): it only keeps an MoE model
    /// off the default profile's union of launchable stacks (trust r9 #2).
    pub framework: bool,
    /// Not a workload key: the search's second pass for instance types on which nothing fits
    /// without context parallelism sets it, so that CP is tried below `CP_MIN_SEQ` there
    /// (plan/train.rs `retry_with_cp`).
    #[serde(skip)]
    pub cp_for_memory: bool,
}

/// The workload keys of the pinnable dimensions, in the order messages name them.
pub const PIN_KEYS: [&str; 9] = [
    "training.parallel.tp",
    "training.parallel.pp",
    "training.parallel.cp",
    "training.parallel.ep",
    "training.parallel.zero",
    "training.micro_batch",
    "training.recompute",
    "training.parallel.sequence_parallel",
    "training.parallel.virtual_stages",
];

impl TrainPins {
    /// The keys present in a workload's `training` table (TOML converted to JSON, or the API's
    /// JSON body). `None` or a non-table: nothing fixed.
    pub fn from_training(training: Option<&serde_json::Value>) -> TrainPins {
        let t = training.and_then(|v| v.as_object());
        let has = |k: &str| t.is_some_and(|t| t.contains_key(k));
        let p = t
            .and_then(|t| t.get("parallel"))
            .and_then(|v| v.as_object());
        let par = |k: &str| p.is_some_and(|p| p.contains_key(k));
        TrainPins {
            tp: par("tp"),
            pp: par("pp"),
            cp: par("cp"),
            ep: par("ep"),
            zero: par("zero"),
            micro_batch: has("micro_batch"),
            recompute: has("recompute"),
            sequence_parallel: par("sequence_parallel"),
            virtual_stages: par("virtual_stages"),
            framework: has("framework")
                || t.and_then(|t| t.get("deepspeed")).and_then(|v| v.as_bool()) == Some(true),
            cp_for_memory: false,
        }
    }

    fn flags(&self) -> [bool; 9] {
        [
            self.tp,
            self.pp,
            self.cp,
            self.ep,
            self.zero,
            self.micro_batch,
            self.recompute,
            self.sequence_parallel,
            self.virtual_stages,
        ]
    }

    pub fn is_empty(&self) -> bool {
        !self.flags().contains(&true)
    }

    /// The workload keys fixed, in [`PIN_KEYS`] order.
    pub fn keys(&self) -> Vec<&'static str> {
        PIN_KEYS
            .iter()
            .zip(self.flags())
            .filter_map(|(k, on)| on.then_some(*k))
            .collect()
    }

    /// These pins with the one of workload key `key` released.
    pub fn without(mut self, key: &str) -> TrainPins {
        let slot = match key.rsplit('.').next().unwrap_or("") {
            "tp" => &mut self.tp,
            "pp" => &mut self.pp,
            "cp" => &mut self.cp,
            "ep" => &mut self.ep,
            "zero" => &mut self.zero,
            "micro_batch" => &mut self.micro_batch,
            "recompute" => &mut self.recompute,
            "sequence_parallel" => &mut self.sequence_parallel,
            "virtual_stages" => &mut self.virtual_stages,
            _ => return self,
        };
        *slot = false;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pins of a TOML workload file's text, as `job::parse_workload` reads them.
    fn from_toml(text: &str) -> TrainPins {
        crate::job::parse_workload("w.toml", text)
            .expect("a workload")
            .pins
    }

    #[test]
    fn keys_present_are_pinned_absent_are_free() {
        let p = from_toml(
            "model = \"x\"\n[training]\nmicro_batch = 2\n[training.parallel]\nzero = 3\ncp = 1\n",
        );
        assert_eq!(
            p.keys(),
            [
                "training.parallel.cp",
                "training.parallel.zero",
                "training.micro_batch"
            ]
        );
        assert!(from_toml("model = \"x\"\n[training]\ntask = \"lora\"\n").is_empty());
        // A named stack (trust r9 #2) is no search dimension: nothing for the blame to release.
        let named = from_toml("model = \"x\"\n[training]\nframework = \"megatron\"\n");
        assert!(named.framework && named.keys().is_empty());
        let ds = |v: &str| from_toml(&format!("model = \"x\"\n[training]\ndeepspeed = {v}\n"));
        assert!(ds("true").framework && !ds("false").framework);
        assert_eq!(p.without("training.parallel.zero").keys().len(), 2);
        let j = serde_json::json!({"recompute": "full", "parallel": {"tp": 2}});
        assert_eq!(
            TrainPins::from_training(Some(&j)).keys(),
            ["training.parallel.tp", "training.recompute"]
        );
    }
}
