# Training step time: what each collective of a step moves and over which link (train/step.rs;
# the estimate's communication table, a plan's JSON `collectives`). Numbers arrive formatted.
step-tp-collective = all-reduce ({ $algo })
step-tp-collective-sp = all-gather + reduce-scatter (ring)
step-cp-collective = ring send/recv of K/V (ring attention)
step-pp-collective = send/recv of activations between stages
step-ep-collective = all-to-all (dispatch + combine)
step-link-inside = { $link } inside the node
step-link-between = { $link } between nodes
step-dp-link-inside = { $link } inside the node ({ $bw })
step-dp-link-between = { $link } between nodes ({ $bw })
step-pp-link-between = { $link } between nodes (the GPU's share of the node's NICs; { $senders } senders per node)
step-ep-link-between = { $link } between nodes (the GPU's share of the node's NICs; { $on_node } of the { $ep } EP ranks per node)
step-zero3-deepspeed = all-gather ×{ $passes } + reduce-scatter per weight tensor (DeepSpeed ZeRO-3)
step-zero3-fsdp = all-gather ×2 + reduce-scatter per layer (ZeRO-3/FSDP)
step-dp-broadcasts = { $grads } ({ $algo }, { $buckets } buckets) + { $bcasts } per-rank broadcasts (ring chain)
step-dp-ar-ag = all-reduce + all-gather ({ $algo }, { $buckets } buckets)
step-dp-rs-ag = reduce-scatter + all-gather ({ $algo }, { $buckets } buckets)
step-dp-ar = all-reduce ({ $algo }, { $buckets } buckets)
