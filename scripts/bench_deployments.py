"""The Deployments scripts/serve-bench.py and scripts/live-bench.py apply: COUNT Deployments
`bench-0` … of REPLICAS replicas each, one small container (10m CPU, 16Mi) per pod."""


def deployments_yaml(count, replicas):
    """One multi-document YAML stream of the Deployments."""
    docs = []
    for i in range(count):
        docs.append(f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: bench-{i}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: bench-{i}}}
  template:
    metadata:
      labels: {{app: bench-{i}}}
    spec:
      containers:
      - name: c
        image: nginx
        resources:
          requests: {{cpu: 10m, memory: 16Mi}}
""")
    return "---\n".join(docs)
