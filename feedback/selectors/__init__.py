"""Read-only queries over turns, feedback, experiences and stats, one module a topic: the API's,
the pages', and all that other apps (refinement) read of feedback. What crosses over is plain
values, never a model, so that feedback's tables stay its own.

Refinement reads feedback only here (tests/test_layers.py holds it): what it reads is named
below. Feedback's own modules import from the topic modules.
"""

from __future__ import annotations

# Who may speak for which component.
from feedback.attribution import candidate_sets as candidate_sets
from feedback.attribution import owners_of as owners_of
from feedback.attribution import speaks_for_all as speaks_for_all
from feedback.attribution import spoken_for as spoken_for

# Which components' feedback rests on machine judges not measured against people yet.
from feedback.judges.weights import unmeasured_reliance as unmeasured_reliance
from feedback.selectors.components import ComponentEvidence as ComponentEvidence
from feedback.selectors.components import ComponentHour as ComponentHour
from feedback.selectors.components import DurationDistribution as DurationDistribution
from feedback.selectors.components import component_durations as component_durations
from feedback.selectors.components import component_evidence as component_evidence
from feedback.selectors.components import component_feedback as component_feedback
from feedback.selectors.components import component_figures as component_figures
from feedback.selectors.components import component_hours as component_hours
from feedback.selectors.components import component_names as component_names
from feedback.selectors.components import component_records as component_records
from feedback.selectors.components import corrections as corrections
from feedback.selectors.experiences import ExperienceRow as ExperienceRow
from feedback.selectors.experiences import experience_window as experience_window
from feedback.selectors.experiences import reward_sums as reward_sums

# The scores of a component by source (people's, agents', environments').
from feedback.source_scores import DEFAULT_SOURCE as DEFAULT_SOURCE
from feedback.source_scores import SOURCE_LABELS as SOURCE_LABELS
from feedback.source_scores import source_asked as source_asked
from feedback.source_scores import source_links as source_links
from feedback.source_scores import source_scores as source_scores
