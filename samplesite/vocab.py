"""Vocabularies the sample site is generated from.

Why a module of plain data: the generator must be deterministic and the pages must
read like the real site (bodoge.hoobby.net), so every Japanese label, slug and
sentence lives here once, in a fixed order (order matters: the generator draws
indices into these lists, so reordering them changes every generated site).

The mechanic and theme sentences are written so that games sharing a mechanic or a
theme share vocabulary in their overview text: a text-similarity model trained on the
sample site then finds real signal, like on the real site.
"""

from __future__ import annotations

from dataclasses import dataclass

# ---------------------------------------------------------------------------
# Mechanics and themes: (slug, label as shown on the page, two sentences)
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tag:
    """A mechanic or a theme: URL slug, Japanese label, and overview sentences."""

    slug: str
    label: str
    phrase: str
    sentences: tuple[str, str]


MECHANICS: tuple[Tag, ...] = (
    Tag("worker-placement", "ワーカープレイスメント", "ワーカーの配置",
        ("手番ではワーカーをアクションスペースに1つずつ配置し、資源や特権を獲得します。",
         "良いアクションスペースは早い者勝ちなので、ワーカーを置く順番の読み合いが重要です。")),
    Tag("area-majority", "エリアマジョリティ", "エリアの奪い合い",
        ("各エリアに自分のコマを送り込み、最も多くのコマを置いたプレイヤーが得点を獲得します。",
         "エリアの過半数をめぐって、終盤まで激しい駆け引きが続きます。")),
    Tag("engine-building", "エンジンビルド", "エンジンの構築",
        ("序盤に獲得したカードや建物が効果を生み出し、手番ごとに得られる資源がどんどん増えていきます。",
         "自分だけのエンジンを組み上げ、終盤に一気に得点を伸ばしましょう。")),
    Tag("dice-roll", "ダイスロール", "ダイスの出目",
        ("ダイスを振って出た目に応じてアクションを選び、行動を決めます。",
         "ダイスの運をどう活かすかがプレイヤーの腕の見せどころです。")),
    Tag("variable-player-power", "プレイヤー別能力", "固有の能力",
        ("各プレイヤーは異なる特殊能力を持ち、それぞれの能力を活かした戦略で勝利を目指します。",
         "能力の組み合わせ次第で毎回違った展開が楽しめます。")),
    Tag("deck-building", "デッキ構築", "デッキの強化",
        ("共通の場からカードを購入して自分のデッキを強化し、山札を循環させていきます。",
         "弱いカードを圧縮し、強力なコンボを作り上げるデッキ構築が醍醐味です。")),
    Tag("trick-taking", "トリックテイキング", "トリックの取り合い",
        ("リードされたスートに従ってカードを1枚ずつ出し、最も強いカードを出したプレイヤーがトリックを獲得します。",
         "切り札やビッドの読み合いが熱い、本格的なトリックテイキングです。")),
    Tag("cooperative", "協力", "全員での協力",
        ("プレイヤー全員が協力してゲームに立ち向かい、全員で勝つか全員で負けるかが決まります。",
         "相談しながら最善手を探す、協力ゲームならではの一体感があります。")),
    Tag("deduction", "推理", "真相の推理",
        ("手がかりを集めて情報を整理し、隠された真相を推理します。",
         "他のプレイヤーの質問や行動から、論理的に答えを絞り込んでいきましょう。")),
    Tag("bluffing", "ブラフ", "ブラフの応酬",
        ("手札を伏せて出し、本当のことを言うか嘘をつくかを選びます。",
         "相手のブラフを見抜けるかどうか、心理戦が勝敗を分けます。")),
    Tag("set-collection", "セットコレクション", "セット集め",
        ("同じ種類のカードを集めてセットを作ると、大きな得点になります。",
         "どのセットを狙うか、場の状況を見ながら柔軟に集めていきます。")),
    Tag("hand-management", "ハンドマネジメント", "手札の管理",
        ("限られた手札をいつ使うか、どの順番で出すかを考えるハンドマネジメントが重要です。",
         "手札の管理次第で、最後に大逆転することもあります。")),
    Tag("card-drafting", "ドラフト", "カードのドラフト",
        ("配られたカードから1枚を選んで残りを隣のプレイヤーに渡すドラフトで、手札を作っていきます。",
         "相手に渡すカードにも気を配る、ドラフトの駆け引きが楽しめます。")),
    Tag("tile-placement", "タイル配置", "タイルの配置",
        ("タイルを1枚ずつ引いて配置し、自分の領地や風景を広げていきます。",
         "タイルのつながりや配置の形によって得点が変わります。")),
    Tag("push-your-luck", "バースト", "引き際の見極め",
        ("もう一回挑戦するか、ここで止めるかを選ぶバースト系のゲームです。",
         "欲張りすぎるとすべてを失うので、引き際の見極めが肝心です。")),
    Tag("negotiation", "交渉", "交渉と取引",
        ("プレイヤー同士で資源や約束を交渉し、取引をまとめていきます。",
         "交渉の巧みさがそのまま勝利につながります。")),
    Tag("auction", "競り", "競りでの入札",
        ("競りで入札し、最も高い値をつけたプレイヤーが品物を落札します。",
         "お金の価値を見極め、競りで適正な値段を付けることが鍵です。")),
    Tag("real-time", "リアルタイム", "スピード勝負",
        ("手番はなく、全員が同時にリアルタイムで行動します。",
         "制限時間内に素早く判断する、スピード感あふれるゲームです。")),
    Tag("memory", "記憶", "記憶力",
        ("一度見たカードの位置や内容を記憶しておくことが大切です。",
         "記憶力が試される場面が何度も訪れます。")),
    Tag("dexterity", "アクション", "手先の器用さ",
        ("コマを積んだり弾いたりする、手先の器用さが試されるアクションゲームです。",
         "思わず歓声が上がる、盛り上がるアクション要素があります。")),
    Tag("hidden-roles", "正体隠匿", "正体の隠し合い",
        ("プレイヤーにはそれぞれ秘密の役職が配られ、正体を隠して行動します。",
         "誰が味方で誰が敵なのか、正体隠匿ならではの疑心暗鬼が楽しめます。")),
    Tag("communication", "コミュニケーション", "仲間との意思疎通",
        ("限られたヒントだけで仲間と意思疎通を図るコミュニケーションゲームです。",
         "言葉の選び方ひとつで、思わぬ笑いが生まれます。")),
    Tag("word-game", "ワードゲーム", "言葉探し",
        ("お題に合った言葉を考えて答える、ワードゲームです。",
         "語彙力と発想力が試されます。")),
    Tag("drawing", "お絵かき", "お絵かき",
        ("お題を絵に描いて、ほかのプレイヤーに当ててもらいます。",
         "絵の上手い下手に関係なく盛り上がるお絵かきゲームです。")),
    Tag("roll-and-write", "ロール＆ライト", "シートへの書き込み",
        ("ダイスを振り、出た目をシートに書き込んでいくロール＆ライトです。",
         "全員が同時に書き込むので、人数が多くてもダウンタイムがありません。")),
    Tag("pattern-building", "パターン構築", "パターン作り",
        ("決められた形やパターンを自分のボード上に作ると得点になります。",
         "パズルのように配置を考える楽しさがあります。")),
    Tag("network-building", "ネットワーク構築", "路線の接続",
        ("線路や道を伸ばして都市同士をつなぐネットワークを作ります。",
         "つないだルートが長いほど多くの得点を獲得できます。")),
    Tag("resource-management", "リソース管理", "資源のやりくり",
        ("木材や石材などの資源を集め、限られた資源をやりくりして建物を建てます。",
         "資源の使い道をよく考えることが勝利への近道です。")),
    Tag("voting", "投票", "みんなの投票",
        ("全員で投票を行い、最も票を集めた答えや人物が選ばれます。",
         "みんなの考えを読む投票が盛り上がります。")),
    Tag("simultaneous-action", "同時行動", "同時公開",
        ("全員が同時にアクションを選び、一斉に公開します。",
         "同時公開の読み合いでテンポよくゲームが進みます。")),
    Tag("team-play", "チーム戦", "チームの連携",
        ("2つのチームに分かれて対戦するチーム戦です。",
         "チームメイトとの連携が勝利の鍵となります。")),
    Tag("storytelling", "ストーリーテリング", "物語づくり",
        ("カードやシナリオに沿って物語が進んでいくストーリーテリングの要素があります。",
         "プレイヤーの選択によって物語の結末が変わります。")),
    Tag("action-points", "アクションポイント", "アクションポイントの配分",
        ("手番ごとに決められた数のアクションポイントを使って行動します。",
         "限られたアクションポイントの配分に頭を悩ませます。")),
    Tag("stock-holding", "株式", "株の売買",
        ("会社の株式を売買し、配当や株価の値上がりで資産を増やします。",
         "どの会社に投資するか、株式の読み合いが熱い経済ゲームです。")),
)

THEMES: tuple[Tag, ...] = (
    Tag("animal", "動物", "森に暮らす動物たち",
        ("かわいい動物たちが登場し、動物のイラストも魅力的です。", "動物たちの暮らす森が舞台です。")),
    Tag("middle-ages", "中世", "中世ヨーロッパの街",
        ("舞台は中世ヨーロッパ。領主として領地を発展させます。", "中世の城下町の雰囲気が楽しめます。")),
    Tag("civilization", "文明", "古代から続く文明",
        ("自らの文明を発展させ、歴史に名を残すことを目指します。", "文明の発展を体感できる壮大なテーマです。")),
    Tag("alcohol", "お酒", "夜の酒場",
        ("お酒をテーマにした大人向けのゲームで、対象年齢は20歳以上です。", "ビールやワインなどお酒のイラストが楽しい作品です。")),
    Tag("fantasy", "ファンタジー", "剣と魔法の世界",
        ("剣と魔法のファンタジー世界で、冒険者たちが活躍します。", "ドラゴンや魔法使いが登場するファンタジー作品です。")),
    Tag("sci-fi", "SF", "遠い未来の銀河",
        ("遠い未来を舞台にしたSF作品です。", "ロボットや未来技術が登場するSFの世界観が魅力です。")),
    Tag("horror", "ホラー", "呪われた洋館",
        ("背筋が凍るホラーの雰囲気が全編に漂います。", "呪われた洋館から脱出するホラー作品です。")),
    Tag("mystery", "ミステリー", "霧に包まれた事件現場",
        ("ミステリー小説のような事件の謎に挑みます。", "探偵となって事件の犯人を追い詰めます。")),
    Tag("war", "戦争", "戦乱の大地",
        ("軍勢を率いて戦場を駆け巡ります。", "戦争の駆け引きを再現したウォーゲームです。")),
    Tag("economy", "経済", "活気あふれる市場",
        ("商売で利益を上げ、最も裕福な商人を目指します。", "経済の仕組みをテーマにした作品です。")),
    Tag("railway", "鉄道", "大陸を横断する鉄道",
        ("鉄道会社の経営者として路線を広げます。", "蒸気機関車が走る鉄道の時代が舞台です。")),
    Tag("nature", "自然", "美しい自然",
        ("豊かな自然の風景を描いたアートワークが楽しめます。", "四季折々の自然がテーマです。")),
    Tag("food", "料理", "にぎやかなレストラン",
        ("おいしそうな料理が次々に登場します。", "料理人となってお客さんに料理をふるまいます。")),
    Tag("space", "宇宙", "未知の宇宙",
        ("宇宙船に乗って未知の惑星を探索します。", "宇宙開発をテーマにした作品です。")),
    Tag("pirates", "海賊", "七つの海",
        ("海賊となって財宝を求め、大海原へ漕ぎ出します。", "海賊船どうしの略奪と宝探しが楽しめます。")),
    Tag("ninja", "忍者", "戦国の忍びの里",
        ("忍者となって密かに任務を遂行します。", "忍者の里を舞台にした和風の作品です。")),
    Tag("japanese-style", "和風", "江戸の町",
        ("和風のアートワークが美しい作品です。", "江戸の町並みを再現した和の世界観が魅力です。")),
    Tag("school", "学校", "にぎやかな学園",
        ("学校生活をテーマにした、誰でも楽しめるゲームです。", "学園を舞台にした青春の物語です。")),
    Tag("history", "歴史", "歴史の転換点",
        ("史実をもとにした歴史的な出来事が再現されています。", "歴史好きにはたまらないテーマです。")),
    Tag("ancient", "古代", "古代ギリシャの都市国家",
        ("古代の都市国家を率いて繁栄を目指します。", "古代遺跡や神殿が登場します。")),
    Tag("farming", "農業", "のどかな農場",
        ("農場を経営し、作物を育てて家畜を増やします。", "畑を耕すのどかな農業がテーマです。")),
    Tag("monster", "モンスター", "モンスターがひしめく迷宮",
        ("個性豊かなモンスターたちが行く手を阻みます。", "モンスターを倒して経験を積んでいきます。")),
    Tag("city-building", "都市建設", "新しい都市",
        ("建物を建てて自分だけの都市を作り上げます。", "都市建設のシミュレーションが楽しめます。")),
    Tag("sports", "スポーツ", "熱狂のスタジアム",
        ("スポーツの試合の興奮をゲームで再現しました。", "選手を育ててチームを優勝に導きます。")),
    Tag("abstract", "抽象", "シンプルな盤面",
        ("テーマを排したアブストラクトで、純粋な思考力が問われます。", "美しいコンポーネントの抽象ゲームです。")),
    Tag("zombie", "ゾンビ", "ゾンビがあふれる街",
        ("ゾンビの大群から生き延びることを目指します。", "ゾンビに囲まれたサバイバルが舞台です。")),
    Tag("romance", "恋愛", "恋の駆け引き",
        ("恋愛をテーマにした、ドキドキの駆け引きが楽しめます。", "意中の相手に想いを届けることを目指します。")),
    Tag("ocean", "海洋", "深い海の底",
        ("海の生き物たちが暮らす海洋の世界が舞台です。", "サンゴ礁や深海の生き物が美しく描かれています。")),
)

MECHANIC_INDEX: dict[str, int] = {t.slug: i for i, t in enumerate(MECHANICS)}
THEME_INDEX: dict[str, int] = {t.slug: i for i, t in enumerate(THEMES)}

# ---------------------------------------------------------------------------
# Latent taste clusters: what a game of the cluster looks like
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cluster:
    """A latent taste: games of a cluster share mechanics, themes, sizes and weight."""

    name: str
    mechanics: tuple[tuple[str, float], ...]
    themes: tuple[tuple[str, float], ...]
    players: tuple[tuple[int, int], ...]
    minutes: tuple[tuple[int, int], ...]
    ages: tuple[int, ...]
    closing: str
    words: tuple[str, ...]  # English name words that suit the cluster


_HEAVY = "ルールはやや複雑ですが、じっくり考える重量級のプレイ感が楽しめます。"
_PARTY = "大人数でワイワイ盛り上がれるパーティーゲームです。"
_LIGHT = "ルールがシンプルで、ボードゲームに慣れていない人にもおすすめです。"
_DUEL = "2人で向き合って遊ぶ対戦ゲームとしても人気があります。"
_FAMILY = "子どもから大人まで家族みんなで楽しめます。"
_MEDIUM = "ほどよい重さで、繰り返し遊びたくなる中量級のゲームです。"

CLUSTERS: tuple[Cluster, ...] = (
    Cluster("heavy-euro",
            (("worker-placement", 4), ("resource-management", 3), ("engine-building", 2),
             ("tile-placement", 1), ("action-points", 1)),
            (("middle-ages", 3), ("civilization", 2), ("farming", 2), ("city-building", 2), ("history", 1)),
            ((1, 4), (2, 4), (1, 5), (2, 5), (3, 4)),
            ((60, 120), (90, 150), (120, 180), (60, 90), (90, 90), (120, 120)),
            (12, 12, 13, 14, 14), _HEAVY,
            ("Kingdom", "Empire", "Harvest", "Colony", "Guild", "Dynasty", "Village", "Castle")),
    Cluster("party",
            (("communication", 3), ("word-game", 2), ("drawing", 2), ("voting", 2), ("team-play", 2),
             ("real-time", 1)),
            (("alcohol", 2), ("school", 2), ("romance", 2), ("food", 1)),
            ((3, 8), (4, 10), (3, 10), (2, 8), (4, 12), (3, 6)),
            ((15, 30), (10, 10), (20, 20), (15, 15), (10, 20)),
            (8, 8, 10, 10, 12), _PARTY,
            ("Party", "Panic", "Word", "Talk", "Rush", "Cocktail", "Beer", "Code")),
    Cluster("deduction",
            (("deduction", 4), ("hidden-roles", 3), ("bluffing", 2), ("voting", 1), ("communication", 1)),
            (("mystery", 3), ("horror", 2), ("ninja", 1), ("alcohol", 1)),
            ((3, 6), (4, 8), (5, 10), (3, 8), (4, 6)),
            ((10, 10), (15, 30), (30, 30), (20, 40)),
            (8, 10, 10, 12), _LIGHT,
            ("Mystery", "Detective", "Secret", "Shadow", "Spy", "Ghost", "Night", "Hidden")),
    Cluster("trick-taking",
            (("trick-taking", 4), ("hand-management", 3), ("set-collection", 1), ("team-play", 1)),
            (("animal", 2), ("japanese-style", 2), ("pirates", 1), ("ocean", 1)),
            ((3, 5), (2, 5), (3, 6), (4, 4), (2, 4)),
            ((20, 20), (20, 40), (30, 30), (15, 30)),
            (8, 10, 10, 12), _LIGHT,
            ("Crown", "Card", "Fox", "Owl", "Trick", "Moon", "Sun", "Star")),
    Cluster("cooperative",
            (("cooperative", 5), ("storytelling", 2), ("dice-roll", 2), ("variable-player-power", 2),
             ("action-points", 1)),
            (("fantasy", 2), ("horror", 2), ("zombie", 2), ("monster", 1)),
            ((1, 4), (2, 4), (1, 5), (2, 6)),
            ((45, 60), (60, 90), (30, 60), (90, 120)),
            (10, 12, 12, 14), _MEDIUM,
            ("Quest", "Legend", "Heroes", "Dungeon", "Zombie", "Survivor", "Saga", "Tales")),
    Cluster("deck-building",
            (("deck-building", 5), ("card-drafting", 2), ("engine-building", 2), ("hand-management", 1)),
            (("fantasy", 2), ("sci-fi", 2), ("monster", 1)),
            ((2, 4), (1, 4), (2, 5), (2, 2)),
            ((30, 60), (45, 45), (30, 45), (40, 60)),
            (10, 12, 12, 13), _MEDIUM,
            ("Magic", "Rune", "Wizard", "Potion", "Alchemy", "Deck", "Relic", "Spell")),
    Cluster("war-area",
            (("area-majority", 4), ("dice-roll", 2), ("variable-player-power", 2), ("negotiation", 1),
             ("simultaneous-action", 1)),
            (("war", 3), ("history", 2), ("ancient", 2), ("sci-fi", 1), ("space", 1)),
            ((2, 4), (2, 6), (3, 5), (2, 2), (3, 6)),
            ((90, 180), (60, 120), (120, 240), (90, 90)),
            (12, 13, 14, 14), _HEAVY,
            ("Battle", "War", "Siege", "Fortress", "Empire", "Republic", "Senate", "Conquest")),
    Cluster("abstract",
            (("pattern-building", 4), ("tile-placement", 3), ("set-collection", 1), ("memory", 1)),
            (("abstract", 3), ("nature", 2), ("japanese-style", 1), ("ocean", 1)),
            ((2, 2), (2, 4), (1, 4), (2, 2)),
            ((15, 30), (20, 20), (10, 20), (30, 45)),
            (6, 8, 8, 10), _DUEL,
            ("Tile", "Cube", "Block", "Crystal", "Garden", "Mosaic", "Pattern", "Gem")),
    Cluster("tableau",
            (("card-drafting", 4), ("set-collection", 3), ("engine-building", 1), ("tile-placement", 1)),
            (("nature", 2), ("animal", 2), ("food", 1), ("ocean", 1)),
            ((1, 5), (2, 5), (2, 4), (1, 4)),
            ((30, 45), (40, 70), (30, 60), (45, 45)),
            (8, 10, 10, 12), _MEDIUM,
            ("Flower", "Bird", "Forest", "Bee", "Tea", "Garden", "River", "Valley")),
    Cluster("family-dexterity",
            (("dexterity", 4), ("memory", 3), ("real-time", 2), ("dice-roll", 1)),
            (("animal", 2), ("food", 2), ("sports", 2), ("monster", 1)),
            ((2, 4), (2, 6), (2, 8), (2, 5)),
            ((10, 10), (15, 15), (10, 20), (5, 15)),
            (4, 5, 6, 6, 7), _FAMILY,
            ("Panda", "Penguin", "Tower", "Cake", "Pizza", "Tiny", "Little", "Race")),
    Cluster("economic",
            (("auction", 3), ("negotiation", 3), ("stock-holding", 2), ("network-building", 2),
             ("resource-management", 1)),
            (("economy", 3), ("railway", 2), ("alcohol", 1), ("city-building", 1)),
            ((3, 5), (2, 5), (3, 6), (3, 4)),
            ((60, 90), (90, 120), (45, 60), (120, 120)),
            (12, 12, 14), _HEAVY,
            ("Market", "Trade", "Merchant", "Rail", "Train", "Bazaar", "Caravan", "Coin")),
    Cluster("roll-and-write",
            (("roll-and-write", 3), ("push-your-luck", 3), ("dice-roll", 3), ("simultaneous-action", 1)),
            (("space", 2), ("nature", 1), ("pirates", 2), ("sports", 1)),
            ((1, 6), (1, 8), (2, 5), (1, 4)),
            ((20, 30), (15, 15), (20, 45), (10, 10)),
            (8, 8, 10), _LIGHT,
            ("Dice", "Rocket", "Mars", "Treasure", "Gold", "Orbit", "Voyage", "Luck")),
)

# Players ranges of a handful of party games: joke upper bounds seen on the real site.
ABSURD_PLAYERS: tuple[tuple[int, int], ...] = ((1, 65536), (3, 50), (2, 99), (4, 100), (2, 30), (3, 20))

# ---------------------------------------------------------------------------
# Game names
# ---------------------------------------------------------------------------

# English word -> katakana reading, for "スカイチーム / Sky Team" style names.
NAME_WORDS: dict[str, str] = {
    "Sky": "スカイ", "Team": "チーム", "Castle": "キャッスル", "Kingdom": "キングダム",
    "Dragon": "ドラゴン", "Island": "アイランド", "Harbor": "ハーバー", "Forest": "フォレスト",
    "Crown": "クラウン", "Tower": "タワー", "Garden": "ガーデン", "Empire": "エンパイア",
    "Rise": "ライズ", "Lost": "ロスト", "Ruins": "ルインズ", "Star": "スター", "Night": "ナイト",
    "Moon": "ムーン", "Sun": "サン", "River": "リバー", "Valley": "バレー", "Road": "ロード",
    "Tiny": "タイニー", "Little": "リトル", "Great": "グレート", "Royal": "ロイヤル",
    "Secret": "シークレット", "Hidden": "ヒドゥン", "Golden": "ゴールデン", "Silver": "シルバー",
    "Crystal": "クリスタル", "Shadow": "シャドウ", "Fire": "ファイア", "Ice": "アイス",
    "Storm": "ストーム", "Ocean": "オーシャン", "Planet": "プラネット", "Galaxy": "ギャラクシー",
    "Station": "ステーション", "Market": "マーケット", "Trade": "トレード", "Merchant": "マーチャント",
    "Pirate": "パイレーツ", "Ninja": "ニンジャ", "Samurai": "サムライ", "Wizard": "ウィザード",
    "Witch": "ウィッチ", "Quest": "クエスト", "Legend": "レジェンド", "Saga": "サーガ",
    "Tales": "テイルズ", "Cats": "キャッツ", "Dog": "ドッグ", "Bee": "ビー", "Fox": "フォックス",
    "Owl": "アウル", "Wolf": "ウルフ", "Bear": "ベア", "Bird": "バード", "Flower": "フラワー",
    "Tea": "ティー", "Coffee": "コーヒー", "Beer": "ビア", "Wine": "ワイン", "Cocktail": "カクテル",
    "Pizza": "ピザ", "Sushi": "スシ", "Cake": "ケーキ", "Train": "トレイン", "Rail": "レイル",
    "City": "シティ", "Village": "ヴィレッジ", "Dungeon": "ダンジョン", "Monster": "モンスター",
    "Zombie": "ゾンビ", "Ghost": "ゴースト", "Mystery": "ミステリー", "Detective": "ディテクティブ",
    "Spy": "スパイ", "Code": "コード", "Word": "ワード", "Party": "パーティー", "Panic": "パニック",
    "Rush": "ラッシュ", "Dice": "ダイス", "Card": "カード", "Cube": "キューブ", "Tile": "タイル",
    "Puzzle": "パズル", "Block": "ブロック", "Farm": "ファーム", "Harvest": "ハーベスト",
    "Colony": "コロニー", "Frontier": "フロンティア", "Expedition": "エクスペディション",
    "Voyage": "ヴォヤージュ", "Journey": "ジャーニー", "Odyssey": "オデッセイ",
    "Chronicle": "クロニクル", "Age": "エイジ", "Dynasty": "ダイナスティ", "Republic": "リパブリック",
    "Senate": "セネト", "Council": "カウンシル", "Guild": "ギルド", "Academy": "アカデミー",
    "Lab": "ラボ", "Robot": "ロボット", "Rocket": "ロケット", "Mars": "マーズ", "Luna": "ルナ",
    "Nova": "ノヴァ", "Orbit": "オービット", "Alchemy": "アルケミー", "Potion": "ポーション",
    "Magic": "マジック", "Rune": "ルーン", "Relic": "レリック", "Treasure": "トレジャー",
    "Gold": "ゴールド", "Gem": "ジェム", "Jewel": "ジュエル", "Coin": "コイン", "Bazaar": "バザール",
    "Caravan": "キャラバン", "Oasis": "オアシス", "Desert": "デザート", "Jungle": "ジャングル",
    "Reef": "リーフ", "Whale": "ホエール", "Shark": "シャーク", "Octopus": "オクトパス",
    "Penguin": "ペンギン", "Panda": "パンダ", "Tiger": "タイガー", "Lion": "ライオン",
    "Eagle": "イーグル", "Hero": "ヒーロー", "Heroes": "ヒーローズ", "Battle": "バトル",
    "War": "ウォー", "Siege": "シージ", "Fortress": "フォートレス", "Arena": "アリーナ",
    "Champion": "チャンピオン", "League": "リーグ", "Race": "レース", "Circuit": "サーキット",
    "Survivor": "サバイバー", "Deck": "デッキ", "Spell": "スペル", "Conquest": "コンクエスト",
    "Mosaic": "モザイク", "Pattern": "パターン", "Talk": "トーク", "Trick": "トリック",
    "Luck": "ラック", "Valkyrie": "ヴァルキリー", "Khora": "コーラ", "Atlas": "アトラス",
    "Nebula": "ネビュラ", "Meadow": "メドウ", "Lantern": "ランタン", "Compass": "コンパス",
}

NAME_WORD_LIST: tuple[str, ...] = tuple(NAME_WORDS)

# Theme -> English words that suit it (names then echo the theme, as real names do).
THEME_WORDS: dict[str, tuple[str, ...]] = {
    "animal": ("Fox", "Owl", "Wolf", "Bear", "Cats", "Dog", "Bee", "Panda", "Tiger", "Lion"),
    "middle-ages": ("Castle", "Kingdom", "Crown", "Royal", "Guild", "Village"),
    "civilization": ("Empire", "Dynasty", "Age", "Chronicle", "Republic"),
    "alcohol": ("Beer", "Wine", "Cocktail", "Night"),
    "fantasy": ("Dragon", "Wizard", "Witch", "Magic", "Rune", "Quest", "Legend"),
    "sci-fi": ("Robot", "Nova", "Galaxy", "Station", "Nebula"),
    "horror": ("Ghost", "Shadow", "Night", "Hidden"),
    "mystery": ("Mystery", "Detective", "Secret", "Spy", "Code"),
    "war": ("Battle", "War", "Siege", "Fortress", "Conquest"),
    "economy": ("Market", "Trade", "Merchant", "Coin", "Bazaar", "Gold"),
    "railway": ("Train", "Rail", "Station", "Road"),
    "nature": ("Forest", "River", "Valley", "Flower", "Meadow", "Garden"),
    "food": ("Pizza", "Sushi", "Cake", "Tea", "Coffee"),
    "space": ("Planet", "Galaxy", "Rocket", "Mars", "Luna", "Orbit"),
    "pirates": ("Pirate", "Treasure", "Island", "Harbor", "Ocean"),
    "ninja": ("Ninja", "Samurai", "Shadow"),
    "japanese-style": ("Samurai", "Lantern", "Garden", "Moon"),
    "school": ("Academy", "Lab", "Party"),
    "history": ("Chronicle", "Age", "Dynasty", "Empire"),
    "ancient": ("Khora", "Atlas", "Relic", "Ruins", "Oasis"),
    "farming": ("Farm", "Harvest", "Meadow", "Village"),
    "monster": ("Monster", "Dungeon", "Dragon", "Heroes"),
    "city-building": ("City", "Tower", "Colony", "Frontier"),
    "sports": ("Arena", "Champion", "League", "Race", "Circuit"),
    "abstract": ("Cube", "Tile", "Block", "Crystal", "Pattern", "Mosaic"),
    "zombie": ("Zombie", "Survivor", "Night"),
    "romance": ("Moon", "Star", "Flower", "Secret"),
    "ocean": ("Reef", "Whale", "Shark", "Octopus", "Ocean"),
}

# Japanese-original names: (written form, romaji) parts.
JA_NOUNS: tuple[tuple[str, str], ...] = (
    ("忍者", "ninja"), ("大名", "daimyo"), ("花火", "hanabi"), ("侍", "samurai"), ("茶会", "chakai"),
    ("宝石", "houseki"), ("迷宮", "meikyu"), ("探偵", "tantei"), ("怪盗", "kaito"), ("商人", "shonin"),
    ("魔法", "mahou"), ("王国", "oukoku"), ("森", "mori"), ("海", "umi"), ("空", "sora"), ("月", "tsuki"),
    ("星", "hoshi"), ("猫", "neko"), ("犬", "inu"), ("狐", "kitsune"), ("狸", "tanuki"), ("鬼", "oni"),
    ("妖怪", "youkai"), ("城", "shiro"), ("村", "mura"), ("街", "machi"), ("市場", "ichiba"),
    ("祭り", "matsuri"), ("酒場", "sakaba"), ("寿司", "sushi"), ("団子", "dango"), ("桜", "sakura"),
    ("紅葉", "momiji"), ("雪", "yuki"), ("風", "kaze"), ("雷", "kaminari"), ("竜", "ryu"),
    ("宝", "takara"), ("冒険", "bouken"), ("学園", "gakuen"), ("目撃者たち", "mokugekishatachi"),
    ("夜", "yoru"), ("YESマン", "yes man"), ("おばけ", "obake"), ("たこ", "tako"), ("きのこ", "kinoko"),
)

JA_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("をさがせ", "wo sagase"), ("ゲーム", "game"), ("パニック", "panic"), ("大作戦", "daisakusen"),
    ("すごろく", "sugoroku"), ("ものがたり", "monogatari"), ("かるた", "karuta"), ("合戦", "kassen"),
    ("屋敷", "yashiki"), ("日和", "biyori"),
)

# ---------------------------------------------------------------------------
# Designers and makers
# ---------------------------------------------------------------------------

FOREIGN_FIRST: tuple[tuple[str, str], ...] = (
    ("John", "ジョン"), ("Michael", "マイケル"), ("David", "デビッド"), ("Thomas", "トーマス"),
    ("Peter", "ピーター"), ("Paul", "ポール"), ("Mark", "マーク"), ("Daniel", "ダニエル"),
    ("Eric", "エリック"), ("Bruno", "ブルーノ"), ("Antoine", "アントワーヌ"), ("Reiner", "ライナー"),
    ("Uwe", "ウヴェ"), ("Wolfgang", "ヴォルフガング"), ("Klaus", "クラウス"), ("Stefan", "シュテファン"),
    ("Vital", "ヴィタル"), ("Friedemann", "フリードマン"), ("Alexander", "アレクサンダー"),
    ("Matt", "マット"), ("Jamey", "ジェイミー"), ("Elizabeth", "エリザベス"), ("Emma", "エマ"),
    ("Anna", "アンナ"), ("Sophie", "ソフィー"), ("Marie", "マリー"), ("Laura", "ローラ"),
    ("Corey", "コリー"), ("Ryan", "ライアン"), ("Isaac", "アイザック"), ("Vlaada", "ヴラーダ"),
    ("Ignacy", "イグナツィ"), ("Shem", "シェム"), ("Phil", "フィル"), ("Ioannis", "イオアニス"),
    ("Xenofon", "ゼノフォン"), ("Simone", "シモーネ"), ("Andrea", "アンドレア"), ("Luca", "ルカ"),
    ("Marco", "マルコ"), ("Carl", "カール"), ("Hans", "ハンス"),
)

FOREIGN_LAST: tuple[tuple[str, str], ...] = (
    ("Clair", "クレア"), ("Stefanidis", "ステファニディス"), ("Katramis", "カトラミス"),
    ("Knizia", "クニツィア"), ("Rosenberg", "ローゼンベルク"), ("Feld", "フェルト"),
    ("Lacerda", "ラセルダ"), ("Chvatil", "チヴァトル"), ("Bauza", "ボザ"), ("Cathala", "カタラ"),
    ("Faidutti", "ファイドゥッティ"), ("Garfield", "ガーフィールド"), ("Leacock", "リーコック"),
    ("Teuber", "トイバー"), ("Kramer", "クラマー"), ("Kiesling", "キースリング"),
    ("Pfister", "フィスター"), ("Stegmaier", "ステグマイヤー"), ("Wallace", "ウォレス"),
    ("Lehmann", "レーマン"), ("Dorn", "ドルン"), ("Suchy", "スヒー"), ("Luciani", "ルチアーニ"),
    ("Tascini", "タシーニ"), ("Brand", "ブラント"), ("Walker", "ウォーカー"), ("Miller", "ミラー"),
    ("Moore", "ムーア"), ("Taylor", "テイラー"), ("Anderson", "アンダーソン"), ("Martin", "マーティン"),
    ("Bernard", "ベルナール"), ("Dubois", "デュボワ"), ("Rossi", "ロッシ"), ("Bianchi", "ビアンキ"),
    ("Novak", "ノヴァク"), ("Schmidt", "シュミット"), ("Weber", "ヴェーバー"), ("Fischer", "フィッシャー"),
    ("Hoffmann", "ホフマン"), ("Jensen", "イェンセン"), ("Larsen", "ラーセン"), ("Costa", "コスタ"),
    ("Silva", "シルヴァ"),
)

MIDDLE_INITIALS: tuple[str, ...] = ("D", "J", "A", "R", "M", "T", "K", "S")

JA_SURNAMES: tuple[tuple[str, str], ...] = (
    ("佐藤", "Sato"), ("鈴木", "Suzuki"), ("高橋", "Takahashi"), ("田中", "Tanaka"), ("伊藤", "Ito"),
    ("渡辺", "Watanabe"), ("山本", "Yamamoto"), ("中村", "Nakamura"), ("小林", "Kobayashi"),
    ("加藤", "Kato"), ("吉田", "Yoshida"), ("山田", "Yamada"), ("佐々木", "Sasaki"), ("山口", "Yamaguchi"),
    ("松本", "Matsumoto"), ("井上", "Inoue"), ("木村", "Kimura"), ("林", "Hayashi"), ("清水", "Shimizu"),
    ("森", "Mori"), ("池田", "Ikeda"), ("橋本", "Hashimoto"), ("石川", "Ishikawa"), ("前田", "Maeda"),
    ("藤田", "Fujita"), ("岡田", "Okada"), ("長谷川", "Hasegawa"), ("村上", "Murakami"),
    ("近藤", "Kondo"), ("坂本", "Sakamoto"),
)

JA_GIVEN: tuple[tuple[str, str], ...] = (
    ("太郎", "Taro"), ("健", "Ken"), ("誠", "Makoto"), ("大輔", "Daisuke"), ("翔", "Sho"),
    ("拓也", "Takuya"), ("直樹", "Naoki"), ("浩二", "Koji"), ("聖二", "Seiji"), ("尚志", "Takashi"),
    ("和也", "Kazuya"), ("亮", "Ryo"), ("悠", "Yu"), ("智子", "Tomoko"), ("恵", "Megumi"),
    ("由美", "Yumi"), ("彩", "Aya"), ("美咲", "Misaki"), ("陽子", "Yoko"), ("真理", "Mari"),
)

MAKER_WORDS: tuple[str, ...] = (
    "Lucky", "Blue", "Crimson", "Tiny", "Iron", "Golden", "Happy", "Quiet", "Wandering", "Clever",
    "Paper", "Stone", "Maple", "Harbor", "Lantern", "Pocket", "Velvet", "Copper", "Meeple", "Owl",
    "Fox", "Cloud", "Moon", "Cedar", "Brick",
)
MAKER_SUFFIXES_EN: tuple[str, ...] = ("Games", "Studio", "Entertainment", "Publishing", "Board Games")
MAKER_SUFFIXES_JA: tuple[str, ...] = ("ゲームズ", "工房", "ボードゲームズ", "プロダクション")

# ---------------------------------------------------------------------------
# Members
# ---------------------------------------------------------------------------

NICK_WORDS: tuple[str, ...] = (
    "ふくろう", "たぬき", "きつね", "くま", "うさぎ", "ねこ", "いぬ", "ぺんぎん", "みかん", "りんご",
    "もち", "だんご", "さくら", "ゆき", "そら", "ほし", "つき", "かぜ", "こたつ", "おでん", "ぷりん",
    "ちくわ", "ひよこ", "かえる", "とまと", "ミープル", "ダイス", "サイコロ", "コマ", "カード",
    "ボドゲ", "ゲーマー", "ポーン", "キューブ", "タイル", "たこやき", "ラムネ", "しろくま",
)
NICK_PREFIXES: tuple[str, ...] = (
    "ボドゲ好きの", "週末", "まったり", "ゆる", "ガチ", "見習い", "通りすがりの", "大阪の", "東京の",
    "ひとり", "おうち", "はじめての",
)
NICK_SUFFIXES: tuple[str, ...] = ("太郎", "丸", "会長", "部長", "ちゃん", "先生", "くん")
ROMAJI_SYLLABLES: tuple[str, ...] = (
    "ka", "ki", "ku", "ke", "ko", "sa", "shi", "su", "se", "so", "ta", "chi", "tsu", "te", "to",
    "na", "ni", "nu", "ne", "no", "ha", "hi", "fu", "he", "ho", "ma", "mi", "mu", "me", "mo",
    "ya", "yu", "yo", "ra", "ri", "ru", "re", "ro", "wa", "n", "ju", "ron", "de", "da", "ga", "go",
)
HANDLE_WORDS: tuple[str, ...] = (
    "meeple", "dice", "cube", "token", "pawn", "boardgamer", "gamer", "tabletop", "euro", "shogi",
)
HANDLE_SUFFIXES: tuple[str, ...] = ("_bg", "_games", "123", "77", "_k", "2020", "_jp", "")

# ---------------------------------------------------------------------------
# Cafes
# ---------------------------------------------------------------------------

CAFE_PREFIXES: tuple[tuple[str, str], ...] = (
    ("ボドゲ", "bodoge"), ("ボードゲーム", "boardgame"), ("ゲーム", "game"), ("テーブルゲーム", "tablegame"),
    ("あそび", "asobi"), ("ダイス", "dice"), ("ミープル", "meeple"), ("すごろく", "sugoroku"),
)
CAFE_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("研究所", "lab"), ("カフェ", "cafe"), ("スペース", "space"), ("基地", "base"), ("酒場", "bar"),
    ("倶楽部", "club"), ("の森", "forest"), ("ハウス", "house"), ("ラウンジ", "lounge"), ("堂", "do"),
)
CAFE_BRANCHES: tuple[tuple[str, str], ...] = (
    ("秋葉原店", "akihabara"), ("新宿店", "shinjuku"), ("渋谷店", "shibuya"), ("池袋店", "ikebukuro"),
    ("梅田店", "umeda"), ("難波店", "namba"), ("吉祥寺店", "kichijoji"), ("中野店", "nakano"),
)
# (prefecture + city/ward, town): addresses in Tokyo and Osaka.
CAFE_AREAS: tuple[tuple[str, str], ...] = (
    ("東京都千代田区", "外神田"), ("東京都新宿区", "西新宿"), ("東京都渋谷区", "道玄坂"),
    ("東京都豊島区", "東池袋"), ("東京都中野区", "中野"), ("東京都台東区", "上野"),
    ("東京都武蔵野市", "吉祥寺本町"), ("東京都世田谷区", "太子堂"), ("東京都千代田区", "神田神保町"),
    ("東京都杉並区", "高円寺南"), ("大阪府大阪市北区", "茶屋町"), ("大阪府大阪市中央区", "難波"),
    ("大阪府大阪市浪速区", "日本橋"), ("大阪府大阪市天王寺区", "堀越町"), ("大阪府大阪市北区", "梅田"),
)
CAFE_BUILDINGS: tuple[str, ...] = ("第一", "第二", "中央", "駅前", "セントラル", "サンライズ", "グランド", "昭和")
CAFE_HOURS: tuple[str, ...] = (
    "13:00～23:00", "12:00～22:00", "11:00～21:00", "15:00～23:00",
    "平日 15:00～23:00 / 土日祝 11:00～23:00", "14:00～翌5:00",
)

# ---------------------------------------------------------------------------
# Posts
# ---------------------------------------------------------------------------

REVIEW_TITLES: tuple[str, ...] = (
    "{mech}が熱い", "{theme}好きにおすすめ", "{mech}の駆け引きが楽しい", "何度でも遊びたくなる",
    "初プレイの感想", "{mech}が好きな人には刺さる", "期待以上の面白さ", "{theme}の世界観が最高",
    "{players}でも楽しめる", "インストしやすい良作",
)
SETUP_SENTENCES: tuple[str, ...] = (
    "各プレイヤーは好きな色を選び、その色のコマとプレイヤーボードを受け取ります。",
    "カードをよくシャッフルし、各プレイヤーに5枚ずつ配ります。残りは山札として中央に置きます。",
    "メインボードをテーブルの中央に置き、得点マーカーを0のマスに置きます。",
    "スタートプレイヤーを適当な方法で決め、そのプレイヤーにスタートプレイヤーマーカーを渡します。",
    "資源トークンを種類ごとに分けて、全員の手が届く場所にストックとして置きます。",
    "プレイ人数に応じて使用するカードを取り除き、残りを箱に戻します。",
)
ENDING_SENTENCES: tuple[str, ...] = (
    "規定のラウンドが終了したらゲーム終了です。最も多くの勝利点を持つプレイヤーが勝者となります。",
    "山札が尽きた時点でゲームが終了し、得点計算を行います。",
    "いずれかのプレイヤーが目標点数に到達したら、そのラウンドの終わりにゲームが終了します。",
    "同点の場合は、残った資源が多いプレイヤーが勝利します。",
)
REVIEW_GOOD: tuple[str, ...] = (
    "ルールがわかりやすく、初めての人にもすぐにインストできました。",
    "毎回展開が変わるので、リプレイ性が高いと感じました。",
    "コンポーネントの質が高く、テーブルに広げたときの見た目が華やかです。",
    "最後まで誰が勝つかわからない接戦になりました。",
)
REVIEW_BAD: tuple[str, ...] = (
    "人数が少ないと少し盛り上がりに欠けるかもしれません。",
    "慣れるまではアイコンの意味を覚えるのが大変でした。",
    "ダウンタイムがやや長く感じる場面がありました。",
    "箱が大きいので、持ち運びには向いていません。",
)
