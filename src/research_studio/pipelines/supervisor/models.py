"""Which model each supervisor role uses: its `<role>_model` setting, else its tier's model.

A node's entry in `model_overrides` wins over both; council members name their own models.
"""

from __future__ import annotations

from research_studio.pipelines.kit.models import ModelTable, RoleModel

SUPERVISOR_MODELS: ModelTable = {
    "research": RoleModel("smart", "research_model"),
    "summarization": RoleModel("fast", "summarization_model"),
    "compression": RoleModel("smart", "compression_model"),
    "final_report": RoleModel("smart", "final_report_model"),
}
