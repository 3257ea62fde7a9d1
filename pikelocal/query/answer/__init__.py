"""Answering: a question in a mode (``modes``), Algorithm 1 (``decompose``), the streamed cited answer
(``generate``), quote-then-answer and its check (``quoted``, ``quote_check``), what the system decides without the
model (``decide``, ``options_check``, ``polarity``, ``provision``) and the system-driven second hop (``hop_plan``,
``hop_values``, ``second_hop``). The top of ``query``: it uses retrieve, context and verify."""
