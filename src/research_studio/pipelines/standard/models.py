"""Which model tier each standard node uses: every judging and writing node asks the smart model.

The workers' page extraction runs on the fast tier (`evidence.gathering`); `model_overrides`
names another model for any node (by node name).
"""

from __future__ import annotations

from research_studio.pipelines.kit.models import ModelTable

STANDARD_MODELS: ModelTable = {
    "understand": "smart",
    "plan": "smart",
    "orchestrate": "smart",
    "detect_gaps": "smart",
    "synthesize": "smart",
    "verify": "smart",
    "write_report": "smart",
}
