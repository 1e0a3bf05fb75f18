# 训练步时间：每类集合通信传输什么、经由哪条链路（train/step.rs；estimate 的通信表）。数字已格式化。
step-tp-collective = all-reduce（{ $algo }）
step-tp-collective-sp = all-gather + reduce-scatter（ring）
step-cp-collective = 环形收发 K/V（ring attention）
step-pp-collective = 流水线阶段之间收发激活值
step-ep-collective = all-to-all（分发 + 合并）
step-link-inside = 节点内 { $link }
step-link-between = 节点间 { $link }
step-dp-link-inside = 节点内 { $link }（{ $bw }）
step-dp-link-between = 节点间 { $link }（{ $bw }）
step-pp-link-between = 节点间 { $link }（每卡分得节点网卡带宽的一份；每节点 { $senders } 个发送方）
step-ep-link-between = 节点间 { $link }（每卡分得节点网卡带宽的一份；每节点 { $on_node } 个 EP rank，共 { $ep } 个）
step-zero3-deepspeed = 每个权重张量 all-gather ×{ $passes } + reduce-scatter（DeepSpeed ZeRO-3）
step-zero3-fsdp = 每层 all-gather ×2 + reduce-scatter（ZeRO-3/FSDP）
step-dp-broadcasts = { $grads }（{ $algo }，{ $buckets } 个桶）+ 逐 rank 广播 { $bcasts } 次（环形链）
step-dp-ar-ag = all-reduce + all-gather（{ $algo }，{ $buckets } 个桶）
step-dp-rs-ag = reduce-scatter + all-gather（{ $algo }，{ $buckets } 个桶）
step-dp-ar = all-reduce（{ $algo }，{ $buckets } 个桶）
