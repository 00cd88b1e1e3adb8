package session

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// pdflatexOT1 are the characters outside ASCII that pdflatex sets from a
// name written as it is in a document of the LaTeX kernel's defaults
// (UTF-8 input, the OT1 font encoding, textcomp's TS1 for symbols), as
// TeX Live 2022 does: each compiles without an error or a missing
// character (TestPdfLaTeXSetsTheCharactersItIsSaidTo; the characters of
// Latin-1, Latin Extended-A and -B, Latin Extended Additional, general
// punctuation, currency, letterlike and mathematical symbols, arrows,
// Greek and Cyrillic were tried). A later LaTeX may set more.
const pdflatexOT1 = "\u00a0" +
	"¡¢£¤¥¦§¨©ª¬®¯°±²³´µ¶·¸¹º¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÕÖ×ØÙÚÛÜÝßàá" +
	"âãäåæçèéêëìíîïñòóôõö÷øùúûüýÿĀāĂăĆćĈĉĊċČčĎďĒēĔĕĖėĚěĜĝĞğĠġĢģĤĥ" +
	"ĨĩĪīĬĭİıĲĳĴĵĶķĹĺĻļĽľŁłŃńŅņŇňŌōŎŏŐőŒœŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭ" +
	"ŮůŰűŴŵŶŷŸŹźŻżŽžƒǄǅǆǇǈǉǊǋǌǍǎǏǐǑǒǓǔǢǣǦǧǨǩǰǴǵȘșȚțȲȳȷḂḃḍḞḟḠḡḥḰḱḷ" +
	"ṃṅṇṛṣṭẎẏẐẑẞỲỳ‐‑‒—―‖‘’“”†‡•‰‱※‽⁄⁎⁒₡₤₦₩₫€₱℃№℗℞℠™" + "\u2126" + "℧℮←↑→↓" // U+2126 is the ohm sign (Ω is the Greek letter)

// pdflatexT1 are the characters pdflatex sets only in the T1 font
// encoding (\usepackage[T1]{fontenc}), among those tried for pdflatexOT1:
// the ogonek of Polish and Lithuanian (ą, ę), Icelandic's eth and thorn,
// the crossed d, eng, guillemets and low quotation marks.
const pdflatexT1 = "«»ÐÞðþĄąĐđĘęĮįŊŋŲųǪǫ‚„‹›"

// texGreekLetters are the Greek letters a name may hold as a symbol (ρ,
// σ²), written as LaTeX's math letters, which every engine sets, as
// unicode-math maps them (ε and φ are \varepsilon and \varphi, ϵ and ϕ
// \epsilon and \phi); the capitals that look like Latin ones are those,
// upright, as math sets Greek capitals.
var texGreekLetters = map[rune]string{
	'α': `\alpha`, 'β': `\beta`, 'γ': `\gamma`, 'δ': `\delta`, 'ε': `\varepsilon`, 'ζ': `\zeta`,
	'η': `\eta`, 'θ': `\theta`, 'ι': `\iota`, 'κ': `\kappa`, 'λ': `\lambda`, 'μ': `\mu`, 'ν': `\nu`,
	'ξ': `\xi`, 'ο': `o`, 'π': `\pi`, 'ρ': `\rho`, 'ς': `\varsigma`, 'σ': `\sigma`, 'τ': `\tau`,
	'υ': `\upsilon`, 'φ': `\varphi`, 'χ': `\chi`, 'ψ': `\psi`, 'ω': `\omega`,
	'ϑ': `\vartheta`, 'ϕ': `\phi`, 'ϖ': `\varpi`, 'ϱ': `\varrho`, 'ϵ': `\epsilon`,
	'Γ': `\Gamma`, 'Δ': `\Delta`, 'Θ': `\Theta`, 'Λ': `\Lambda`, 'Ξ': `\Xi`, 'Π': `\Pi`,
	'Σ': `\Sigma`, 'Υ': `\Upsilon`, 'ϒ': `\Upsilon`, 'Φ': `\Phi`, 'Ψ': `\Psi`, 'Ω': `\Omega`,
	'Α': `\mathrm{A}`, 'Β': `\mathrm{B}`, 'Ε': `\mathrm{E}`, 'Ζ': `\mathrm{Z}`, 'Η': `\mathrm{H}`,
	'Ι': `\mathrm{I}`, 'Κ': `\mathrm{K}`, 'Μ': `\mathrm{M}`, 'Ν': `\mathrm{N}`, 'Ο': `\mathrm{O}`,
	'Ρ': `\mathrm{P}`, 'Τ': `\mathrm{T}`, 'Χ': `\mathrm{X}`,
}

// texSymbols are the symbols that pdflatex does not set from the character
// but LaTeX has a command for, without a package: mathematical ones in
// math (\ensuremath, so that they work in text), sub- and superscript
// digits as \textsubscript and \textsuperscript. (− is $-$ in texEscape.)
var texSymbols = map[rune]string{
	'√': `\ensuremath{\surd}`, '≥': `\ensuremath{\geq}`, '≤': `\ensuremath{\leq}`, '≠': `\ensuremath{\neq}`,
	'≈': `\ensuremath{\approx}`, '∞': `\ensuremath{\infty}`, '∼': `\ensuremath{\sim}`, '≡': `\ensuremath{\equiv}`,
	'∝': `\ensuremath{\propto}`, '∓': `\ensuremath{\mp}`, '⋅': `\ensuremath{\cdot}`, '∘': `\ensuremath{\circ}`,
	'∗': `\ensuremath{\ast}`, '∈': `\ensuremath{\in}`, '∉': `\ensuremath{\notin}`, '∂': `\ensuremath{\partial}`,
	'∇': `\ensuremath{\nabla}`, '∑': `\ensuremath{\sum}`, '∏': `\ensuremath{\prod}`, '∫': `\ensuremath{\int}`,
	'∧': `\ensuremath{\wedge}`, '∨': `\ensuremath{\vee}`, '∩': `\ensuremath{\cap}`, '∪': `\ensuremath{\cup}`,
	'⊂': `\ensuremath{\subset}`, '⊆': `\ensuremath{\subseteq}`, '⊥': `\ensuremath{\perp}`, '∣': `\ensuremath{\mid}`,
	'∅': `\ensuremath{\emptyset}`, '∀': `\ensuremath{\forall}`, '∃': `\ensuremath{\exists}`, '≪': `\ensuremath{\ll}`,
	'≫': `\ensuremath{\gg}`, '≃': `\ensuremath{\simeq}`, '≅': `\ensuremath{\cong}`, '⊗': `\ensuremath{\otimes}`,
	'⊕': `\ensuremath{\oplus}`, '∙': `\ensuremath{\bullet}`, '∆': `\ensuremath{\Delta}`, '∖': `\ensuremath{\setminus}`,
	'⇒': `\ensuremath{\Rightarrow}`, '⇔': `\ensuremath{\Leftrightarrow}`, '↔': `\ensuremath{\leftrightarrow}`,
	'′': `\ensuremath{'}`, '″': `\ensuremath{''}`,
	'₀': `\textsubscript{0}`, '₁': `\textsubscript{1}`, '₂': `\textsubscript{2}`, '₃': `\textsubscript{3}`,
	'₄': `\textsubscript{4}`, '₅': `\textsubscript{5}`, '₆': `\textsubscript{6}`, '₇': `\textsubscript{7}`,
	'₈': `\textsubscript{8}`, '₉': `\textsubscript{9}`,
	'⁰': `\textsuperscript{0}`, '⁴': `\textsuperscript{4}`, '⁵': `\textsuperscript{5}`, '⁶': `\textsuperscript{6}`,
	'⁷': `\textsuperscript{7}`, '⁸': `\textsuperscript{8}`, '⁹': `\textsuperscript{9}`,
}

// texText is text (a name, a label, a header) as a .tex table writes it:
// composed (NFC: a letter and its combining accent, as a CSV saved on
// macOS may hold, are one letter, which pdflatex sets, where it stopped
// at the accent: Unicode character ́ (U+0301) not set up for use with
// LaTeX), texEscape's escapes, then a Greek letter that stands alone (not beside
// another Greek letter: ρ, σ², Δincome) as its math letter and the
// symbols of texSymbols as their commands, so that pdflatex sets them; a
// Greek word (Παιδεία) stays as it is, for LuaLaTeX or XeLaTeX
// (texScriptNotes says so).
func texText(s string) string {
	s = texEscape.Replace(norm.NFC.String(s))
	if isASCII(s) {
		return s
	}
	runes := []rune(s)
	var b strings.Builder
	for i, r := range runes {
		if cmd, ok := texGreekLetters[r]; ok && loneGreekLetter(runes, i) {
			b.WriteString(`\ensuremath{` + cmd + `}`)
		} else if cmd, ok := texSymbols[r]; ok {
			b.WriteString(cmd)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// loneGreekLetter reports whether runes[i] has no Greek letter (or
// combining mark) beside it, so that texText writes it as a math letter
// when texGreekLetters has it (ρ, σ², Δincome, but not Παιδεία).
func loneGreekLetter(runes []rune, i int) bool {
	greek := func(j int) bool {
		return j >= 0 && j < len(runes) && (unicode.Is(unicode.Greek, runes[j]) || unicode.Is(unicode.Mn, runes[j]))
	}
	return !greek(i-1) && !greek(i+1)
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// texScriptNotes says, for the tabulars of a .tex file (tex, without its %
// lines), what the characters outside ASCII that it writes as they are
// need: the T1 font encoding under pdflatex (pdflatexT1), or LuaLaTeX or
// XeLaTeX with a font that has them (those pdflatex does not set with
// the fonts of a default TeX Live: Cyrillic, Greek words, CJK, ...);
// nothing for those pdflatex sets as it is (pdflatexOT1). Names of
// Cyrillic letters alone may instead use pdflatex with T2A.
func texScriptNotes(tex string) []string {
	var t1, unicodeOnly []rune
	seen := map[rune]bool{}
	cyrillic := true // every one of unicodeOnly is a letter of T2A
	for _, r := range tex {
		if r < 0x80 || seen[r] || strings.ContainsRune(pdflatexOT1, r) {
			continue
		}
		seen[r] = true
		if strings.ContainsRune(pdflatexT1, r) {
			t1 = append(t1, r)
			continue
		}
		unicodeOnly = append(unicodeOnly, r)
		cyrillic = cyrillic && r >= 0x400 && r <= 0x45f
	}
	var notes []string
	if len(t1) > 0 {
		notes = append(notes, fmt.Sprintf("the names hold %s, which pdflatex sets only in the T1 font encoding: under pdflatex the table needs \\usepackage[T1]{fontenc} (LuaLaTeX and XeLaTeX need nothing)", charList(t1)))
	}
	if len(unicodeOnly) > 0 {
		note := fmt.Sprintf("the names hold %s, which pdflatex does not set with the fonts of a default TeX Live (it stops at the first: Unicode character ... not set up for use with LaTeX): compile the document with LuaLaTeX or XeLaTeX and \\usepackage{fontspec}, with a main font that has them, as \\setmainfont{DejaVu Serif} (Latin Modern, fontspec's default, has no Cyrillic, Greek or CJK, and a missing letter is left out with only a warning in the log); the table's width is measured in Computer Modern, which DejaVu Serif sets up to 13%% wider, so that a table that fits the text would be wider than it (Overfull \\hbox): with DejaVu Serif give width = the text width × 0.87, width = 300 for an article's 345 pt", charList(unicodeOnly))
		if cyrillic {
			// T2A's letters, which it sets only as the document's default
			// encoding (else: Command \CYRD unavailable in encoding T1);
			// Greek has no such route (LGR as the default would set Latin
			// letters as Greek ones, and babel's \textgreek must wrap each
			// word).
			note += "; or, under pdflatex, T2A as the document's default font encoding, the last of fontenc's: \\usepackage[T1,T2A]{fontenc} (texlive-lang-cyrillic)"
		}
		notes = append(notes, note)
	}
	return notes
}

// charList lists the first few of rs, as ą, ę, đ (and 3 more).
func charList(rs []rune) string {
	const most = 8
	var parts []string
	for i, r := range rs {
		if i == most {
			break
		}
		parts = append(parts, string(r))
	}
	s := strings.Join(parts, ", ")
	if len(rs) > most {
		s += fmt.Sprintf(" (and %d more)", len(rs)-most)
	}
	return s
}
