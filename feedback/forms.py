"""The annotators' rating form. It parses what a browser sends; the protocol models and services
judge it.

Ranges, the correction rule and the span check live in `learnportal_protocol` and the services,
so a refusal reads the same here as over the API: `core.web.show_learn_error` puts each of
a LearnError's details next to the field it names (`RATING_LOCS`).
"""

from __future__ import annotations

from django import forms

from learnportal_protocol import FeedbackDimension, FeedbackPolarity
from learnportal_protocol.models import NAME_LENGTH

POLARITY_HELP = {
    FeedbackPolarity.POSITIVE: "Good as it is",
    FeedbackPolarity.NEGATIVE: "Wrong or unhelpful",
    FeedbackPolarity.NEUTRAL: "Neither",
    FeedbackPolarity.CORRECTIVE: "Say what it should have been",
}
# Where a protocol field's error is shown on the rating form.
RATING_LOCS = {"correction_span": "span_start", "polarity": "polarity", "score": "score"}


class RatingForm(forms.Form):
    feedback_id = forms.CharField(widget=forms.HiddenInput, max_length=NAME_LENGTH)
    # Not required here: a rating without a polarity is the protocol's to refuse, in its words.
    polarity = forms.ChoiceField(
        choices=[(p.value, p.value.capitalize()) for p in FeedbackPolarity],
        widget=forms.RadioSelect,
        required=False,
    )
    score = forms.FloatField(
        initial=0.0,
        required=False,
        widget=forms.NumberInput(attrs={"type": "range", "min": -1, "max": 1, "step": 0.1}),
    )
    dimension = forms.ChoiceField(
        choices=[(d.value, d.value.replace("_", " ").capitalize()) for d in FeedbackDimension],
        initial=FeedbackDimension.HELPFULNESS.value,
    )
    confidence = forms.FloatField(
        initial=1.0,
        required=False,
        widget=forms.NumberInput(attrs={"min": 0, "max": 1, "step": 0.05}),
    )
    comment = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    correction = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "What the response should say"}),
    )
    # Whether the person moved the score themselves (rate.js): until they do, the score follows
    # the polarity they choose, after a refused submit as before it.
    score_set = forms.BooleanField(required=False, widget=forms.HiddenInput)
    span_start = forms.IntegerField(required=False, widget=forms.HiddenInput)
    span_end = forms.IntegerField(required=False, widget=forms.HiddenInput)

    def span(self) -> tuple[int, int] | None:
        start, end = self.cleaned_data.get("span_start"), self.cleaned_data.get("span_end")
        if start is None and end is None:
            return None
        # Half a span is still a span the model will refuse, with its own message.
        return (start if start is not None else -1, end if end is not None else -1)


class QueueRatingForm(RatingForm):
    """The rating form of the queue page: the same fields, and the turn they rate."""

    turn = forms.IntegerField(widget=forms.HiddenInput)
