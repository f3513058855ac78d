"""Discovery, the variants' understanding phase: which entity the query means, and how sure we are.

- `analyzer`: fast patterns, then the model's ERA-CoT reading (the variants' `analyzer` node);
- `nodes`: discovery, confidence_check, auto_refine and clarify;
- `prompts`, `schemas`: what these nodes ask the model and what it must return.

V9's own understanding step is `nodes/query_analyzer.py` (no discovery phase).
"""
