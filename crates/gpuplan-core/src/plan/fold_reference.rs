//! The reference fold of near-duplicate plans, for tests only: the planner's
//! [`super::fold_in_place`] swaps within the ranked list; this one moves each plan out of it into
//! a new list (the fold the planner used before stop 41's perf22 change). The property test below
//! holds the two to the same answer, `also` lists included. Both share the predicates of what a
//! near-duplicate is ([`super::near_duplicate`], [`super::lossier_twin`]) and the format marks
//! ([`super::mark_format`]): what is compared is the fold's bookkeeping, which plan is kept,
//! which is shown and what is named beside it.

use super::{lossier_twin, mark_format, near_duplicate, Plan, Provider};

/// [`super::collapse_near_duplicates`] by the reference fold.
pub(super) fn collapse(plans: &mut Vec<Plan>) {
    let all = std::mem::take(plans);
    plans.reserve(all.len());
    drop(fold_into(plans, all.into_iter()));
}

/// The plans of `ranked` (best first) that are no near-duplicate of a better one, pushed onto
/// `kept`, which must be empty; each near-duplicate is named in the `also` of the first kept plan
/// it duplicates. Returns the near-duplicates.
fn fold_into(kept: &mut Vec<Plan>, ranked: impl Iterator<Item = Plan>) -> Vec<Plan> {
    let mut folded = Vec::new();
    let mut buckets: std::collections::HashMap<(Provider, String, u64), Vec<usize>> =
        std::collections::HashMap::new();
    for p in ranked {
        let key = (
            p.instance.provider,
            p.gpu.id.clone(),
            p.total_gpus.to_bits(),
        );
        let bucket = buckets.entry(key).or_default();
        match bucket.iter().copied().find(|&i| {
            near_duplicate(&kept[i], &p) || lossier_twin(&kept[i], &p) || lossier_twin(&p, &kept[i])
        }) {
            Some(i) => folded.push(fold_step(&mut kept[i], p)),
            None => {
                bucket.push(kept.len());
                kept.push(p);
            }
        }
    }
    folded
}

/// `p`, a near-duplicate of the kept `k`, is folded into it: the shipped format or the plan on
/// fewer nodes is shown, the other is named in `also` and returned.
fn fold_step(k: &mut Plan, p: Plan) -> Plan {
    let p = if lossier_twin(&p, k) {
        native_shown(k, p)
    } else {
        fewer_nodes_first(k, p)
    };
    let mut name = format!("{} × {}", p.nodes, p.instance.id);
    if let (Some(x), Some(y)) = (&k.serve, &p.serve) {
        if x.weights != y.weights {
            name = format!("{name} {}", y.weights.name());
        }
    }
    if !k.also.contains(&name) {
        k.also.push(name);
    }
    p
}

/// Of two training plans that are the same answer, the one on fewer nodes is shown.
fn fewer_nodes_first(kept: &mut Plan, p: Plan) -> Plan {
    if kept.train.is_none() || p.nodes >= kept.nodes {
        return p;
    }
    shown_instead(kept, p)
}

/// `p` takes `kept`'s rank and the names folded into it so far; the plan it replaces returns.
fn shown_instead(kept: &mut Plan, p: Plan) -> Plan {
    let also = std::mem::take(&mut kept.also);
    let mut out = std::mem::replace(kept, p);
    kept.also = also;
    out.also.clear();
    out
}

/// The shipped-format plan `p` is shown in place of `kept`, the names folded so far marked with
/// `kept`'s format.
fn native_shown(kept: &mut Plan, p: Plan) -> Plan {
    mark_format(kept);
    shown_instead(kept, p)
}

#[cfg(test)]
mod tests {
    use super::super::{plan, rank, rank_and_fold, Constraints, Job, Objective, PlanRequest};
    use super::*;
    use crate::catalog::Catalog;
    use crate::constants::Tunables;
    use crate::model::find_preset;
    use crate::workload::{TrainTask, TrainingSetup};

    /// A real outcome's plans, `also` cleared, in reverse order with a near-duplicate (another
    /// type id, 0.1% slower) added after every third plan.
    fn plans_with_twins() -> Vec<Plan> {
        let cat = Catalog::builtin().expect("catalog");
        let req = PlanRequest {
            model: find_preset("Qwen2.5-7B").expect("preset").model.clone(),
            job: Job::Train {
                setup: TrainingSetup {
                    task: TrainTask::Lora,
                    seq_len: 2048,
                    tokens: Some(1e8),
                    ..Default::default()
                },
                global_batch: None,
                precision_pinned: false,
                pins: Default::default(),
            },
            constraints: Constraints::default(),
            objective: Objective::Cost,
            tunables: Tunables::default(),
        };
        let mut plans = Vec::new();
        for (i, mut p) in plan(&req, &cat)
            .expect("plan")
            .plans
            .into_iter()
            .enumerate()
        {
            p.also.clear();
            if i % 3 == 0 {
                let mut twin = p.clone();
                twin.instance.id.push_str("-twin");
                twin.hours *= 1.001;
                plans.push(twin);
            }
            plans.push(p);
        }
        plans.reverse();
        plans
    }

    /// The planner ranks and folds in one pass (`rank_and_fold`, the fold in place): the same
    /// list, `also` included, as `rank` then the reference fold; `collapse_near_duplicates` on the
    /// ranked list gives it too. Moved from tests/ranking.rs
    /// (`rank_and_fold_is_rank_then_collapse`) when the public collapse took the planner's fold.
    #[test]
    fn rank_and_fold_is_rank_then_the_reference_fold() {
        let plans = plans_with_twins();
        let json = |v: &[Plan]| serde_json::to_value(v).expect("json");
        for obj in [Objective::Cost, Objective::Time, Objective::Balanced] {
            let (mut a, mut b) = (plans.clone(), plans.clone());
            rank(&mut a, obj);
            let mut c = a.clone();
            collapse(&mut a);
            super::super::collapse_near_duplicates(&mut c);
            rank_and_fold(&mut b, obj);
            assert!(a
                .iter()
                .any(|p| p.also.iter().any(|x| x.ends_with("-twin"))));
            assert!(a.len() < plans.len());
            assert_eq!(json(&a), json(&b), "{obj:?}: rank_and_fold");
            assert_eq!(json(&a), json(&c), "{obj:?}: collapse_near_duplicates");
        }
    }
}
