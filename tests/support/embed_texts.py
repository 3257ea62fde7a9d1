"""Test texts: topical paragraphs (English and Chinese) to build long documents from."""

from __future__ import annotations

from dataclasses import dataclass

EN_PARAGRAPHS = [
    # 0 tendering
    "Every tenderer must lodge a bid bond worth two percent of the contract price before the tender "
    "closes. The bond may take the form of a bank guarantee or a certified cheque, and it is returned to "
    "unsuccessful tenderers within five working days after the contract is awarded. A tender that "
    "arrives without a valid bond is rejected without evaluation. If the successful tenderer withdraws "
    "its offer or refuses to sign the contract, the procuring entity keeps the bond as compensation and "
    "may award the contract to the runner-up. Questions about the bond must be sent in writing to the "
    "procurement officer no later than ten days before the closing date.",
    # 1 photosynthesis
    "Photosynthesis takes place in the chloroplasts of green plants. Chlorophyll absorbs red and blue "
    "light and uses its energy to split water molecules, releasing oxygen as a by-product. The energy "
    "captured in this light-dependent stage is stored in ATP and NADPH, which then drive the Calvin "
    "cycle. In that cycle the enzyme RuBisCO fixes carbon dioxide from the air into three-carbon sugars, "
    "which the plant turns into glucose, starch and cellulose. Leaves open and close tiny pores called "
    "stomata to balance the intake of carbon dioxide against the loss of water vapour on hot and dry "
    "days.",
    # 2 football
    "The home side won the cup final three goals to one after a dramatic second half. Their young "
    "striker scored twice in the space of ten minutes, first with a header from a corner kick and then "
    "with a low shot into the far corner. The visitors had taken the lead early through a penalty, but "
    "their goalkeeper was sent off shortly after half time for handling the ball outside his area. The "
    "captain lifted the trophy in front of forty thousand cheering fans, and the coach praised the "
    "players for staying calm when they were behind. It was the club's first title in twenty years.",
    # 3 cooking
    "To bake a simple loaf of bread, mix five hundred grams of strong flour with a teaspoon of salt and "
    "a sachet of dried yeast. Add three hundred millilitres of warm water and knead the dough for about "
    "ten minutes until it is smooth and elastic. Leave it in an oiled bowl covered with a damp towel "
    "until it has doubled in size, which takes about an hour in a warm kitchen. Knock it back, shape it "
    "into a loaf, let it rise again, and bake it in a hot oven for thirty minutes. The loaf is done when "
    "it sounds hollow when you tap the bottom.",
    # 4 astronomy
    "A neutron star is the collapsed core of a massive star that exploded as a supernova. It packs more "
    "mass than the Sun into a sphere only about twenty kilometres across, so a teaspoon of its material "
    "would weigh billions of tonnes on Earth. Many neutron stars spin hundreds of times per second and "
    "sweep beams of radio waves across space; astronomers observe them as pulsars with extremely regular "
    "ticks. When two neutron stars merge they emit gravitational waves and forge heavy elements such as "
    "gold and platinum, which are scattered into the galaxy.",
    # 5 employment law
    "An employer who wishes to dismiss an employee for misconduct must first give written notice of the "
    "allegations and a fair opportunity to respond. The employee may bring a colleague or a union "
    "representative to the disciplinary meeting. Dismissal without notice is lawful only for serious "
    "misconduct such as theft, violence or gross negligence. In every other case the employee is "
    "entitled to the notice period stated in the employment contract or, if it is longer, the statutory "
    "minimum. A worker who was dismissed unfairly may claim reinstatement or compensation before the "
    "employment tribunal within three months.",
    # 6 computing
    "A relational database stores data in tables whose rows are identified by a primary key. Indexes, "
    "usually built as B-trees, let the query planner find matching rows without scanning the whole "
    "table. Transactions group several changes so that either all of them are committed or none are, and "
    "write-ahead logging lets readers continue while a writer appends to the log. A foreign key "
    "constraint ensures that a row in one table refers to an existing row in another. Careful "
    "normalisation avoids storing the same fact twice, which would otherwise allow the copies to drift "
    "apart.",
    # 7 travel / geography
    "The mountain railway climbs from the lakeside town through pine forests and alpine meadows to a "
    "station just below the glacier. The journey takes about two hours and crosses several stone "
    "viaducts and spiral tunnels built more than a century ago. From the upper station walkers can "
    "follow marked trails to a hut that serves soup and hot chocolate, or take a cable car to the summit "
    "viewing platform. In winter the line carries skiers, and snow ploughs run before the first train "
    "each morning to clear drifts from the track.",
]

ZH_PARAGRAPHS = [
    # 0 tendering (same topic as EN 0)
    "投标人应当在投标截止时间前提交投标保证金，金额为合同估算价的百分之二。投标保证金可以采用银"
    "行保函或者支票形式。未按规定提交投标保证金的投标，评标委员会应当否决其投标。招标人最迟应当"
    "在书面合同签订后五日内向中标人和未中标的投标人退还投标保证金。中标人无正当理由拒绝签订合同"
    "的，招标人可以不予退还其投标保证金。",
    # 1 weather / park
    "今天天气晴朗，气温适宜，很多市民来到公园散步、放风筝。湖边的柳树已经发出了新芽，草地上开满"
    "了黄色和紫色的小花。孩子们在广场上追逐嬉戏，老人们坐在长椅上下棋聊天。傍晚时分，夕阳把湖面"
    "染成了金红色，游客们纷纷拿出手机拍照留念。",
    # 2 labour contract (same topic as EN 5)
    "用人单位解除劳动合同，应当事先将理由通知工会，并提前三十日以书面形式通知劳动者本人。劳动者"
    "严重违反用人单位的规章制度，或者严重失职、营私舞弊，给用人单位造成重大损害的，用人单位可以"
    "解除劳动合同。用人单位违法解除劳动合同的，劳动者可以要求继续履行劳动合同，也可以要求支付赔"
    "偿金。",
    # 3 cooking
    "做红烧肉时，先把五花肉切成小块，冷水下锅焯去血沫。锅中放少量油和冰糖，小火炒出糖色，再放入"
    "肉块翻炒上色。加入葱姜、八角、料酒和生抽，倒入没过肉块的开水，盖上锅盖小火慢炖一个小时，最"
    "后大火收汁即可出锅。",
]


@dataclass(frozen=True)
class LongDoc:
    """A document made of paragraphs separated by blank lines, with each paragraph's character span."""

    text: str
    paragraphs: list[str]
    spans: list[tuple[int, int]]


def make_doc(paragraphs: list[str]) -> LongDoc:
    spans, pos = [], 0
    for p in paragraphs:
        spans.append((pos, pos + len(p)))
        pos += len(p) + 2
    return LongDoc("\n\n".join(paragraphs), list(paragraphs), spans)
