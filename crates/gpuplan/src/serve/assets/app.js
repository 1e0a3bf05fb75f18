// gpuplan serve: the page. Plain script, no libraries, no network beyond this server.
// The form state lives in the URL query; every change re-plans (debounced) via POST /api/v1/plan.
"use strict";

const $ = (s) => document.querySelector(s);
const SVGNS = "http://www.w3.org/2000/svg";
const TOP = 200; // plans asked for: all feasible ones for the chart (the README scenario has ~100)
let M = {}; // messages of the current language
let lang = "en";
let last = null; // last plan document
let selected = 0; // index of the selected plan
let timer = null;
let seq = 0; // request sequence: answers to superseded requests are dropped

function t(id, vars) {
  let s = M[id] ?? id;
  for (const [k, v] of Object.entries(vars || {})) s = s.split("{$" + k + "}").join(String(v));
  return s;
}

function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

async function loadMessages(l) {
  const r = await fetch("/api/v1/messages/" + l);
  const d = await r.json();
  M = d.messages || {};
  lang = l;
  document.documentElement.lang = l === "zh" ? "zh-CN" : "en";
  document.querySelectorAll("[data-i18n]").forEach((el) => (el.textContent = t(el.dataset.i18n)));
  document.querySelectorAll("[data-i18n-placeholder]").forEach((el) => (el.placeholder = t(el.dataset.i18nPlaceholder)));
  document.title = t("page-title");
}

// ---- form <-> URL ----
const FIELDS = ["model", "task", "tokens", "dataset", "seq", "rate", "inTok", "outTok", "ttft", "tpot", "deadline", "budget", "billing", "optimize"];

function readForm() {
  const s = {};
  for (const f of FIELDS) s[f] = $("#" + f).value.trim();
  s.provider = [...document.querySelectorAll("input[name=provider]:checked")].map((e) => e.value).join(",");
  s.chip = [...document.querySelectorAll("input[name=chip]:checked")].map((e) => e.value).join(",");
  s.interruptible = $("#interruptible").checked ? "1" : "";
  return s;
}

function writeForm(q) {
  for (const f of FIELDS) if (q.has(f)) $("#" + f).value = q.get(f);
  for (const [name, key] of [["provider", "provider"], ["chip", "chip"]]) {
    if (!q.has(key)) continue;
    const on = q.get(key).split(",");
    document.querySelectorAll(`input[name=${name}]`).forEach((e) => (e.checked = on.includes(e.value)));
  }
  if (q.has("interruptible")) $("#interruptible").checked = q.get("interruptible") === "1";
  if (q.has("sel")) selected = Math.max(0, parseInt(q.get("sel"), 10) - 1 || 0);
}

function stateUrl(s) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(s)) if (v !== "") q.set(k, v);
  q.set("lang", lang);
  if (selected > 0) q.set("sel", String(selected + 1));
  return location.pathname + "?" + q.toString();
}

// A number when the text is one, else the text itself (the server names the field and the range).
function num(v) {
  if (v === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : v;
}

function requestOf(s) {
  const constraints = {
    providers: s.provider ? s.provider.split(",") : [],
    chips: s.chip ? s.chip.split(",") : [],
    billing: s.billing,
    interruptible: s.interruptible === "1",
  };
  if (s.budget !== "") constraints.budget_cny = num(s.budget);
  const body = { model: s.model, objective: s.optimize, constraints };
  // lang: the server's error messages and the answer's warnings in the page's language.
  const query = new URLSearchParams({ top: String(TOP), lang });
  if (s.deadline !== "") query.set("deadline", /^[0-9.eE+]+$/.test(s.deadline) ? s.deadline + "h" : s.deadline);
  if (s.task === "inference") {
    body.serve = { rate_rps: num(s.rate), input_tokens: num(s.inTok), output_tokens: num(s.outTok), ttft_s: num(s.ttft), tpot_s: num(s.tpot) };
  } else {
    body.training = { task: s.task, tokens: num(s.tokens), seq_len: num(s.seq) };
    if (s.dataset !== "") query.set("dataset-size", s.dataset);
  }
  return { body, query };
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(replan, 250);
}

async function replan() {
  const s = readForm();
  document.body.classList.toggle("serving", s.task === "inference");
  document.querySelectorAll(".train-only").forEach((e) => (e.hidden = s.task === "inference"));
  document.querySelectorAll(".serve-only").forEach((e) => (e.hidden = s.task !== "inference"));
  history.replaceState(null, "", stateUrl(s));
  $("#share").href = stateUrl(s);
  const { body, query } = requestOf(s);
  const my = ++seq;
  $("#status").textContent = t("working");
  let d;
  try {
    const r = await fetch("/api/v1/plan?" + query.toString(), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    d = await r.json();
  } catch (e) {
    d = { kind: "error", error: { message: String(e) } };
  }
  if (my !== seq) return;
  $("#status").textContent = "";
  if (d.kind === "error") return showError(d.error);
  $("#error").hidden = true;
  last = d;
  if (selected >= d.outcome.plans.length) selected = 0;
  render();
}

function showError(e) {
  const box = $("#error");
  box.hidden = false;
  box.textContent = t("error-title") + (e.field ? " (" + e.field + ")" : "") + ": " + e.message;
  box.dataset.field = e.field || "";
}

// ---- rendering ----
function fmtHours(h) {
  if (h >= 8760) return (h / 8760).toFixed(1) + " " + t("years");
  return h >= 72 ? (h / 24).toFixed(1) + " " + t("days") : h.toFixed(1) + " " + t("hours");
}

function fmtMoney(x) {
  return "¥" + (x >= 100 ? Math.round(x).toLocaleString() : x.toFixed(2));
}

function config(p) {
  if (p.train) {
    const s = p.train.setup, par = s.parallel;
    return `TP${par.tp} PP${par.pp} DP${p.train.memory.data_parallel}${par.ep > 1 ? " EP" + par.ep : ""} ZeRO-${par.zero} ${s.recompute !== "none" ? s.recompute + " recompute " : ""}mb${s.micro_batch}×${s.grad_accum}`;
  }
  if (p.serve) {
    const w = typeof p.serve.weights === "string" ? p.serve.weights : p.serve.weights.format;
    return `${w} TP${p.serve.tp} × ${p.serve.replicas}`;
  }
  return "";
}

function priceTitle(p, i) {
  const c = p.chosen;
  if (!c) return t("price-none");
  const age = (last.price_ages || []).find((a) => a.rank === i + 1);
  return t("price-hover", { kind: t("price-kind-" + c.price.kind), region: c.price.region, asof: c.price.as_of, age: age && age.age_days != null ? age.age_days : "?", source: c.price.source });
}

function render() {
  const o = last.outcome, plans = o.plans;
  const serving = !!(plans[0] && plans[0].serve);
  $("#count").textContent = plans.length
    ? t("plans-count", { shown: plans.length, total: o.total_plans, evaluated: o.stats.configurations })
    : t("no-plans");
  $("#plans thead").innerHTML = "<tr>" + ["col-rank", "col-instance", "col-nodes", "col-gpus", "col-config", "col-time", "col-cost", "col-pareto"].map((c) => `<th>${esc(t(c))}</th>`).join("") + "</tr>";
  const pareto = new Set(o.pareto);
  $("#plans tbody").innerHTML = plans
    .map((p, i) => {
      const c = p.chosen;
      const bill = c && c.mix
        ? t("billing-mix-page", { months: c.mix.months, hours: Math.round(c.mix.remainder_hours), rest: t("billing-" + c.mix.remainder_billing) })
        : c && t("billing-" + c.billing);
      const cost = c ? fmtMoney(c.cny) + (serving ? t("per-month") : "") + ` <small>(${esc(bill)})</small>` : esc(t("price-none"));
      return `<tr data-i="${i}" class="${i === selected ? "sel" : ""}"><td class="num">${i + 1}</td><td>${esc(p.instance.id)}<br><small>${esc(t("provider-" + p.instance.provider))} · ${esc(p.gpu.id)}</small></td>` +
        `<td class="num">${p.nodes}</td><td class="num">${p.total_gpus}</td><td>${esc(config(p))}</td><td class="num">${fmtHours(p.hours)}</td>` +
        `<td class="num"><span class="price" title="${esc(priceTitle(p, i))}">${cost}</span></td><td>${pareto.has(i) ? "★" : ""}</td></tr>`;
    })
    .join("");
  $("#plans tbody").querySelectorAll("tr").forEach((tr) => tr.addEventListener("click", () => select(+tr.dataset.i)));
  drawChart(plans, o.pareto, serving);
  drawDetail(plans[selected]);
  // The warnings `gpuplan plan` prints on stderr (old prices, an unknown region), in the language the request was sent in.
  const ws = last.warnings || [];
  $("#warnings-box").hidden = ws.length === 0;
  $("#warnings").innerHTML = ws.map((w) => `<li class="warning">${esc(w.message)}</li>`).join("");
  $("#rejected").innerHTML = o.rejected.map((b) => `<li>${esc(lang === "zh" ? b.message_zh : b.message_en)}</li>`).join("");
}

function select(i) {
  selected = i;
  history.replaceState(null, "", stateUrl(readForm()));
  $("#share").href = location.href;
  render();
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// Log-scale axis from the data's range (powers of ten with 2 and 5 between).
function logScale(vals, a, b) {
  let lo = Math.min(...vals), hi = Math.max(...vals);
  if (!(lo > 0)) lo = hi > 0 ? hi / 10 : 1;
  lo = Math.pow(10, Math.floor(Math.log10(lo) * 4) / 4);
  hi = Math.pow(10, Math.ceil(Math.log10(hi) * 4 + 1e-9) / 4);
  if (hi <= lo) hi = lo * 10;
  const f = (v) => a + ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (b - a);
  const ticks = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++)
    for (const m of [1, 2, 5]) { const v = m * Math.pow(10, e); if (v >= lo && v <= hi) ticks.push(v); }
  return { f, ticks };
}

function tickLabel(v) {
  return v >= 1e6 ? v / 1e6 + "M" : v >= 1e3 ? v / 1e3 + "k" : String(+v.toPrecision(3));
}

function drawChart(plans, pareto, serving) {
  const box = $("#chart");
  box.innerHTML = "";
  const pts = plans.map((p, i) => ({ i, x: p.hours, y: p.chosen ? p.chosen.cny : null })).filter((p) => p.y != null && p.x > 0 && p.y > 0);
  if (!pts.length) return;
  const W = 640, H = 300, L = 64, R = 16, T = 12, B = 40;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img", "aria-label": t("chart-title") }, box);
  const sx = logScale(pts.map((p) => p.x), L, W - R), sy = logScale(pts.map((p) => p.y), H - B, T);
  for (const v of sx.ticks) {
    el("line", { class: "grid", x1: sx.f(v), x2: sx.f(v), y1: T, y2: H - B }, svg);
    el("text", { x: sx.f(v), y: H - B + 14, "text-anchor": "middle" }, svg).textContent = tickLabel(v);
  }
  for (const v of sy.ticks) {
    el("line", { class: "grid", x1: L, x2: W - R, y1: sy.f(v), y2: sy.f(v) }, svg);
    el("text", { x: L - 6, y: sy.f(v) + 4, "text-anchor": "end" }, svg).textContent = tickLabel(v);
  }
  el("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }, svg);
  el("line", { class: "axis", x1: L, x2: L, y1: T, y2: H - B }, svg);
  el("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, svg).textContent = t("chart-x");
  el("text", { x: 12, y: (T + H - B) / 2, "text-anchor": "middle", transform: `rotate(-90 12 ${(T + H - B) / 2})` }, svg).textContent = t("chart-y") + (serving ? t("per-month") : "");
  const front = pts.filter((p) => pareto.includes(p.i)).sort((a, b) => a.x - b.x);
  if (front.length > 1) {
    let d = "";
    front.forEach((p, k) => {
      d += (k ? ` H${sx.f(p.x)} V${sy.f(p.y)}` : `M${sx.f(p.x)} ${sy.f(p.y)}`);
    });
    el("path", { class: "frontier", d }, svg);
  }
  for (const p of pts) {
    const onFront = pareto.includes(p.i);
    const c = el("circle", { class: onFront ? "pareto-pt" : "pt", cx: sx.f(p.x), cy: sy.f(p.y), r: onFront ? 5 : 3.5, "data-rank": p.i + 1 }, svg);
    el("title", {}, c).textContent = `#${p.i + 1} ${plans[p.i].instance.id} × ${plans[p.i].nodes}: ${fmtHours(p.x)}, ${fmtMoney(p.y)}\n${priceTitle(plans[p.i], p.i)}`;
    c.addEventListener("click", () => select(p.i));
  }
  const s = pts.find((p) => p.i === selected);
  if (s) el("circle", { class: "chosen", cx: sx.f(s.x), cy: sy.f(s.y), r: 9, "data-rank": s.i + 1 }, svg);
  const lg = document.createElement("div");
  lg.className = "legend";
  lg.innerHTML = `<span><i class="sw" style="background:#2f6fde;opacity:.55"></i>${esc(t("chart-legend-plan"))}</span><span><i class="sw" style="background:#d9480f"></i>${esc(t("chart-legend-pareto"))}</span><span><i class="sw" style="border:2px solid #000"></i>${esc(t("chart-legend-chosen"))}</span>`;
  box.appendChild(lg);
}

const PALETTE = ["#2f6fde", "#e8590c", "#2b8a3e", "#ae3ec9", "#f08c00", "#1098ad", "#c2255c", "#5c940d", "#495057", "#7048e8", "#d6336c", "#0b7285"];

// One horizontal stacked bar: parts [{name, value, title}], scaled to max(sum, cap).
function stackedBar(box, parts, cap, unit, capLabel) {
  box.innerHTML = "";
  const W = 420, H = 34, sum = parts.reduce((a, p) => a + p.value, 0), full = Math.max(sum, cap || 0) || 1;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H + 6}`, width: "100%", class: "bar" }, box);
  let x = 0;
  parts.forEach((p, k) => {
    const w = (p.value / full) * W;
    const r = el("rect", { class: "seg", x, y: 4, width: Math.max(w, 0), height: H - 8, fill: PALETTE[k % PALETTE.length], "data-name": p.name }, svg);
    el("title", {}, r).textContent = p.title;
    x += w;
  });
  if (cap) {
    const cx = (cap / full) * W;
    el("line", { x1: cx, x2: cx, y1: 0, y2: H, stroke: "#000", "stroke-width": 2, "stroke-dasharray": "3 2" }, svg);
  }
  const ul = document.createElement("ul");
  ul.className = "legend";
  ul.innerHTML = parts.map((p, k) => `<span title="${esc(p.title)}"><i class="sw" style="background:${PALETTE[k % PALETTE.length]}"></i>${esc(p.name)} ${p.value.toFixed(2)} ${unit}</span>`).join("") + (capLabel ? `<span>— ${esc(capLabel)}</span>` : "");
  box.appendChild(ul);
}

const GIB = 1073741824;

// The page's name of a core component: its Fluent message when there is one, else the name.
function part(prefix, name) {
  const id = prefix + "-" + name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  return M[id] ?? name;
}

function drawDetail(p) {
  $("#selected").textContent = p ? t("selected", { rank: selected + 1 }) + " — " + p.instance.id + " × " + p.nodes : "";
  if (!p) {
    $("#memory").innerHTML = $("#step").innerHTML = $("#advice").innerHTML = "";
    return;
  }
  const capGib = p.usable_memory_gib || p.gpu.memory_gib || p.instance.gpu_memory_gib;
  const cap = capGib ? t("memory-capacity", { gib: +capGib.toFixed(1) }) : "";
  if (p.train) {
    const m = p.train.memory;
    stackedBar($("#memory"), m.items.map((c) => ({ name: part("mem", c.name), value: c.bytes / GIB, title: `${part("mem", c.name)}: ${(c.bytes / GIB).toFixed(2)} GiB — ${c.basis}` })), capGib, "GiB", cap);
    const s = p.train.step;
    const parts = [
      ["compute", s.compute - s.optimizer], ["optimizer", s.optimizer], ["pipeline bubble", s.pipeline_bubble],
      ["TP comm", s.tp_comm], ["PP comm", s.pp_comm], ["EP comm", s.ep_comm], ["DP comm (exposed)", s.dp_comm_exposed],
    ].filter(([, v]) => v > 0).map(([name, v]) => ({ name: part("step", name), value: v, title: `${part("step", name)}: ${v.toFixed(3)} s / ${s.step.toFixed(3)} s (${part("bottleneck", s.bottleneck)})` }));
    stackedBar($("#step"), parts, 0, "s", t("step-total", { s: s.step.toFixed(3), mfu: (s.mfu * 100).toFixed(1) }));
  } else if (p.serve) {
    const m = p.serve.memory;
    const parts = [["weights", m.weights], ["KV cache pool", m.kv_pool], ["activations", m.activation_peak], ["non-torch", m.non_torch], ["CUDA graphs", m.cudagraph]]
      .filter(([, v]) => v > 0).map(([name, v]) => ({ name: part("mem", name), value: v / GIB, title: `${part("mem", name)}: ${(v / GIB).toFixed(2)} GiB` }));
    stackedBar($("#memory"), parts, capGib, "GiB", cap);
    const l = p.serve.latency;
    const out = Number($("#outTok").value) || 0;
    stackedBar($("#step"), [
      { name: part("step", "TTFT"), value: l.ttft, title: `${part("step", "TTFT")}: ${l.ttft.toFixed(3)} s` },
      { name: part("step", "decode"), value: l.time_per_token * out, title: `${part("step", "decode")}: ${out} × ${(l.time_per_token * 1000).toFixed(1)} ms` },
    ], 0, "s", "");
  }
  $("#advice").innerHTML = p.advice.map((a) => `<li class="${esc(a.severity)}">${esc(lang === "zh" ? a.zh : a.en)}</li>`).join("");
}

async function main() {
  const q = new URLSearchParams(location.search);
  const want = q.get("lang") || ((navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en");
  await loadMessages(want === "zh" ? "zh" : "en");
  writeForm(q);
  $("#lang").addEventListener("click", async () => {
    await loadMessages(lang === "zh" ? "en" : "zh");
    history.replaceState(null, "", stateUrl(readForm()));
    // The page's own labels at once; the answer's warnings are in the request's language: ask
    // again in the new one.
    if (last) {
      render();
      replan();
    }
  });
  $("#form").addEventListener("input", schedule);
  $("#form").addEventListener("change", schedule);
  $("#form").addEventListener("submit", (e) => { e.preventDefault(); replan(); });
  $("#share").addEventListener("click", (e) => {
    e.preventDefault();
    if (navigator.clipboard) navigator.clipboard.writeText(location.href).then(() => ($("#status").textContent = t("copied")), () => {});
  });
  fetch("/api/v1/models").then((r) => r.json()).then((d) => {
    $("#models").innerHTML = (d.models || []).map((m) => `<option value="${esc(m.name)}">`).join("");
  });
  replan();
}

main();
