"""ddl: topology-aware allreduce (a rebuild of IBM PowerAI DDL), Python side.

Import-light on purpose: nothing here imports torch. Submodules:
  ddl.workload  python3 -m ddl.workload MODEL: a torch model's training workload CSV
  ddl.models    GPT-2-small-like and BERT-base-like torch modules for ddl.workload
"""
