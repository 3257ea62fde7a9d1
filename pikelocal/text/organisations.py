"""How an organisation's name ends, as Chinese documents print it (局, 中心, 公司, 委员会, 大學 …): one list for the
readers that tell a name from other words (``review/title_block.py``: a purchaser before a title;
``review/role_names.py``: a name before its role in brackets)."""

from __future__ import annotations

# Longer endings where one holds another do not matter: a pattern ends with it (``$``) or the name's match stops at
# the first that fits.
ORGANISATION_END = (
    r"局|處|处|署|部|會|会|府|所|公所|中心|院|校|大學|大学|公司|委員會|委员会|管理處|辦公室|办公室|分署|廳|厅"
    r"|集团|集團|银行|銀行|馆|館|站|队|隊|社|厂|廠|台"
)
