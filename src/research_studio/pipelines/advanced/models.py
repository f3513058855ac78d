"""Which model tier each advanced node uses: analysis, extraction, verification fast; planning, writing smart.

`model_overrides` in the configuration names another model for any node (by node name).
"""

from __future__ import annotations

from research_studio.pipelines.kit.models import ModelTable

ADVANCED_MODELS: ModelTable = {
    # analysis
    "query_analyzer": "fast",
    "analyzer": "fast",
    "discovery": "fast",
    "auto_refine": "fast",
    "clarify": "fast",
    "gap_detector": "fast",
    # extraction
    "subagent": "fast",
    "claim_extractor": "fast",
    "batched_cred_claims": "fast",
    # verification
    "credibility_scorer": "fast",
    "ranker": "fast",
    "cite": "fast",
    "span_verify": "fast",
    "cross_validate": "fast",
    "batched_verify": "fast",
    "trust_engine": "fast",
    # planning and writing
    "planner": "smart",
    "writer": "smart",
}
