#!/usr/bin/env python3
"""A generated cluster made Karpenter-managed, for timing Karpenter's consolidation.

Each node of SRC_DIR (`repel generate -o SRC_DIR`) is labelled `karpenter.sh/nodepool` with its
pool (`agentpool` in the default shape, `eks.amazonaws.com/nodegroup` in `large-workloads`),
and DST_DIR gets one `karpenter.sh/v1` NodePool per pool, in the shape of the corpus file
karpenter-provider-azure--v1-general-purpose.yaml (consolidation on, `consolidateAfter: 0s`,
the default WhenEmptyOrUnderutilized policy). The other files are copied.

    repel generate --nodes 1000 --pods 30000 --seed 1 -o g1k
    scripts/karpenter-shape.py g1k k1k
    repel consolidate --as karpenter -f k1k

Usage: scripts/karpenter-shape.py SRC_DIR DST_DIR
"""

import os
import re
import shutil
import sys

POOL = r"\n    (?:agentpool|eks\.amazonaws\.com/nodegroup): (\S+)\n"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    for f in os.listdir(src):
        if f != "nodes.yaml":
            shutil.copy(os.path.join(src, f), dst)
    with open(os.path.join(src, "nodes.yaml")) as f:
        text = f.read()
    text = re.sub("(" + POOL + ")", r"\1    karpenter.sh/nodepool: \2\n", text)
    with open(os.path.join(dst, "nodes.yaml"), "w") as f:
        f.write(text)
    with open(os.path.join(dst, "nodepools.yaml"), "w") as out:
        for p in sorted(set(re.findall(POOL, text))):
            out.write(
                f"""---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {p}
spec:
  disruption:
    consolidateAfter: 0s
    budgets:
    - nodes: 30%
  template:
    spec:
      nodeClassRef:
        group: karpenter.azure.com
        kind: AKSNodeClass
        name: default
      expireAfter: Never
      requirements:
      - key: kubernetes.io/arch
        operator: In
        values: ["amd64"]
"""
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
