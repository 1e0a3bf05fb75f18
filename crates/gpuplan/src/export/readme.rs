//! The bundle's README.txt in the run's language (`--lang`): every sentence is a catalog message
//! (export.ftl, `export-readme-*`); commands, flags, file names and numbers stay as they are.

use super::train::{self, EpStack};
use super::view::{CheckpointBasis, PlanView, TrainView};
use super::{version, File};
use gpuplan_core::i18n::{Lang, Msg};

/// `m` in `l`, each of its lines indented by `pad`, ending with a newline.
fn lines(l: Lang, m: Msg, pad: &str) -> String {
    m.render(l).lines().map(|x| format!("{pad}{x}\n")).collect()
}

/// README.txt: the title, the files, the training settings, the region and the way from plan to
/// running job.
pub fn readme(p: &PlanView, files: &[File], l: Lang) -> File {
    let title = Msg::new("export-readme-title").arg("version", version());
    let mut text = format!("{}\n{}\n\n", title.render(l), p.title_in(l));
    text.push_str(&lines(l, Msg::new("export-readme-files"), ""));
    for f in files {
        text.push_str(&format!("  {}\n", f.path));
    }
    if let Some(t) = &p.train {
        text.push_str(&training_settings(t, l));
        text.push_str(&ep_lines(t, l));
        text.push_str(&checkpoint_settings(t, l));
        text.push_str(&ep_stack_paragraph(t, l));
        text.push_str(&not_carried_paragraph(p, t, l));
    }
    if p.region.is_none() {
        let var = if p.provider == "alibaba" {
            "REGION_ID"
        } else {
            "REGION"
        };
        text.push('\n');
        text.push_str(&lines(
            l,
            Msg::new("export-readme-region").arg("var", var),
            "",
        ));
    }
    text.push('\n');
    text.push_str(&lines(l, Msg::new("export-readme-steps-head"), ""));
    text.push_str(&five_commands(p, l));
    text.push('\n');
    text.push_str(&lines(l, Msg::new("export-readme-placeholders"), ""));
    File::new("README.txt", text)
}

/// The training settings the plan's memory and step time were computed for: the launch files
/// carry the parallelism and the batch, but LoRA, the sequence length and recomputation live in
/// the user's training script, which must match them (audit r6 #10).
fn training_settings(t: &TrainView, l: Lang) -> String {
    let task = Msg::new("export-readme-task")
        .arg("task", t.task.as_str())
        .arg("lora", lora_clause(t, l))
        .arg("precision", t.precision.as_str())
        .arg("optimizer", t.optimizer.as_str());
    let seq = Msg::new("export-readme-sequence")
        .arg("seq", t.seq_len.to_string())
        .arg("mb", t.micro_batch.to_string())
        .arg("ga", t.grad_accum.to_string());
    let rc = Msg::new("export-readme-recompute")
        .arg("recompute", t.recompute.as_str())
        .arg("attention", t.attention.as_str());
    let mut s = String::from("\n");
    s.push_str(&lines(l, Msg::new("export-readme-training-head"), ""));
    for m in [task, seq, rc] {
        s.push_str(&lines(l, m, "  "));
    }
    s
}

/// ` (LoRA rank 16, targets all-linear, dropout 0.05, base weights nf4)` for a PEFT task.
fn lora_clause(t: &TrainView, l: Lang) -> String {
    let peft = matches!(t.task.as_str(), "lora" | "qlora");
    let Some(r) = t.lora_rank.filter(|_| peft) else {
        return String::new();
    };
    let targets = if t.lora_targets.is_empty() {
        "all-linear".to_string()
    } else {
        t.lora_targets.join(",")
    };
    let dropout = t.lora_dropout.map_or(String::new(), |d| {
        Msg::new("export-readme-lora-dropout")
            .arg("d", d.to_string())
            .render(l)
    });
    let base = t.lora_base.as_ref().map_or(String::new(), |b| {
        Msg::new("export-readme-lora-base")
            .arg("b", b.as_str())
            .render(l)
    });
    let m = Msg::new("export-readme-lora")
        .arg("rank", r.to_string())
        .arg("targets", targets)
        .arg("dropout", dropout)
        .arg("base", base);
    format!(" {}", m.render(l))
}

/// Which checkpoint interval the launch files carry (`GPUPLAN_CHECKPOINT_STEPS`, Megatron's
/// `--save-interval`, LitGPT's `save_interval`): the one of the billing the plan priced.
fn checkpoint_settings(t: &TrainView, l: Lang) -> String {
    let m = match (
        t.checkpoint_interval_s,
        t.checkpoint_steps(),
        t.checkpoint_basis,
    ) {
        (Some(secs), Some(steps), Some(basis)) => Msg::new("export-readme-checkpoint")
            .arg("secs", format!("{secs:.0}"))
            .arg("steps", steps.to_string())
            .arg(
                "basis",
                Msg::new(match basis {
                    CheckpointBasis::Spot => "export-readme-basis-spot",
                    CheckpointBasis::Failures => "export-readme-basis-failures",
                }),
            ),
        _ => Msg::new("export-readme-checkpoint-none"),
    };
    lines(l, m, "  ")
}

/// The lines on the plan's expert parallelism (empty without EP).
fn ep_lines(t: &TrainView, l: Lang) -> String {
    if t.ep <= 1 {
        return String::new();
    }
    let m = Msg::new("export-readme-ep")
        .arg("ep", t.ep.to_string())
        .arg("etp", t.etp.to_string())
        .arg("split", if t.etp > 1 { "True" } else { "False" });
    lines(l, m, "  ")
}

/// The paragraph on an EP plan whose ZeRO stage Megatron does not run.
fn ep_stack_paragraph(t: &TrainView, l: Lang) -> String {
    let m = match train::ep_stack(t) {
        EpStack::Megatron => return String::new(),
        EpStack::DeepSpeedMoe => Msg::new("export-readme-ep-deepspeed")
            .arg("zero", t.zero.to_string())
            .arg("ep", t.ep.to_string())
            .arg("zero2", if t.zero == 2 { "yes" } else { "no" }),
        EpStack::None => Msg::new("export-readme-ep-none")
            .arg("zero", t.zero.to_string())
            .arg("ep", t.ep.to_string())
            .arg("tp", t.tp.to_string())
            .arg("pp", t.pp.to_string())
            .arg("cp", t.cp.to_string())
            .arg("stack", t.framework.as_str()),
    };
    format!("\n{}", lines(l, m, ""))
}

/// The plan settings the default launcher does not carry.
fn not_carried_paragraph(p: &PlanView, t: &TrainView, l: Lang) -> String {
    let launcher = train::launcher_default(p, t);
    let keys = train::not_carried(t, launcher);
    if keys.is_empty() {
        return String::new();
    }
    let head = Msg::new("export-readme-not-carried").arg("launcher", launcher);
    let mut s = format!("\n{}", lines(l, head, ""));
    for k in keys {
        s.push_str(&lines(l, k, "  "));
    }
    s
}

/// From plan to running job: the machines (cloud CLI), then either the nodes themselves or a
/// Kubernetes cluster made of them.
fn five_commands(p: &PlanView, l: Lang) -> String {
    let last = p.nodes.saturating_sub(1).to_string();
    let (node, job) = match &p.serve {
        Some(_) => (Msg::new("export-readme-step-serve"), "k8s/deployment.yaml"),
        None if p.train.as_ref().is_some_and(|t| t.framework == "litgpt") => (
            Msg::new("export-readme-step-litgpt").arg("last", last),
            "k8s/pytorchjob.yaml",
        ),
        None => (
            Msg::new("export-readme-step-train").arg("last", last),
            "k8s/pytorchjob.yaml",
        ),
    };
    let volcano = if p.serve.is_some() { "no" } else { "yes" };
    let steps = [
        Msg::new("export-readme-step-dry-run"),
        Msg::new("export-readme-step-create").arg("n", p.nodes.to_string()),
        Msg::new("export-readme-step-copy"),
        node,
        Msg::new("export-readme-step-logs"),
    ];
    let mut s = String::new();
    for (i, m) in steps.into_iter().enumerate() {
        s.push_str(&lines(l, m, &format!("  {}. ", i + 1)));
    }
    let k8s = Msg::new("export-readme-k8s")
        .arg("slug", p.slug())
        .arg("job", job)
        .arg("volcano", volcano);
    let k8s = k8s.render(l);
    let mut it = k8s.lines();
    if let Some(first) = it.next() {
        s.push_str(&format!("{first}\n"));
    }
    for x in it {
        s.push_str(&format!("  {x}\n"));
    }
    s
}
