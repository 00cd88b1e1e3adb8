package session

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestTeXTextWritesWhatPdfLaTeXSets: a lone Greek letter is its math
// letter and a mathematical symbol its command, which pdflatex sets
// (they stopped it: Unicode character ρ (U+03C1) not set up for use with
// LaTeX); letters pdflatex sets, and Greek and Cyrillic words, stay as
// they are.
func TestTeXTextWritesWhatPdfLaTeXSets(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Dochód (zł)", "Dochód (zł)"},
		{"Zażółć gęślą jaźń", "Zażółć gęślą jaźń"},
		{"Größe", "Größe"},
		{"Docho\u0301d (z\u0142)", "Dochód (zł)"}, // decomposed, as macOS may write it
		{"ρ", `\ensuremath{\rho}`},
		{"σ²", `\ensuremath{\sigma}²`},
		{"Δincome", `\ensuremath{\Delta}income`},
		{"ε φ ϵ ϕ", `\ensuremath{\varepsilon} \ensuremath{\varphi} \ensuremath{\epsilon} \ensuremath{\phi}`},
		{"Ρ_1", `\ensuremath{\mathrm{P}}\_1`},
		{"Παιδεία γονέων", "Παιδεία γονέων"},
		{"αβ", "αβ"},
		{"Дети", "Дети"},
		{"x − y", "x $-$ y"},
		{"√n ≥ 2", `\ensuremath{\surd}n \ensuremath{\geq} 2`},
		{"x₁ ± 1", `x\textsubscript{1} ± 1`},
		{"a_b & 50%", `a\_b \& 50\%`},
	} {
		if got := texText(tc.in); got != tc.want {
			t.Errorf("texText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for r := range texGreekLetters {
		if r < 0x370 || r > 0x3ff {
			t.Errorf("texGreekLetters has %q (U+%04X), not a Greek letter", r, r)
		}
	}
}

// TestTeXScriptNotesSayWhatTheNamesNeed: names pdflatex sets need no
// note; ą needs T1 under pdflatex; Cyrillic and Greek words need
// LuaLaTeX or XeLaTeX with a font that has them (or babel's T2A or LGR).
func TestTeXScriptNotesSayWhatTheNamesNeed(t *testing.T) {
	for _, tc := range []struct {
		tex     string
		want    []string // a substring of each note, in order
		notWant string
	}{
		{`Dochód (zł) & Příjem & Größe & \ensuremath{\rho} & ± \\`, nil, ""},
		{`Zażółć gęślą jaźń & Đorđe \\`, []string{"hold ę, ą, Đ, đ, which pdflatex sets only in the T1 font encoding", `\usepackage[T1]{fontenc}`}, ""},
		{`Дети & Größe \\`, []string{"hold Д, е, т, и, which pdflatex does not set", "LuaLaTeX or XeLaTeX", `\usepackage[T1,T2A]{fontenc} (texlive-lang-cyrillic)`}, ""},
		{`Παιδεία & gęś \\`, []string{"hold ę, which pdflatex sets only in the T1", "hold Π, α, ι, δ, ε, ί, which pdflatex does not set", "LuaLaTeX or XeLaTeX"}, "T2A"},
		{`Дети & Доход (₽) \\`, []string{"LuaLaTeX or XeLaTeX"}, "T2A"}, // T2A has no ₽
		{`收入 \\`, []string{"hold 收, 入, which pdflatex does not set", `\setmainfont`}, ""},
	} {
		notes := strings.Join(texScriptNotes(tc.tex), "\n")
		if tc.want == nil && notes != "" {
			t.Errorf("%s: notes %q, want none", tc.tex, notes)
		}
		if tc.notWant != "" && strings.Contains(notes, tc.notWant) {
			t.Errorf("%s: the notes say %q:\n%s", tc.tex, tc.notWant, notes)
		}
		rest := notes
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: the notes do not say %q (after what came before):\n%s", tc.tex, w, notes)
				break
			}
			rest = rest[i+len(w):]
		}
	}
}

// namesScript fits models of two data sets whose columns are named in
// Polish, Czech, German and with a Greek letter and mathematical symbols
// (latin.csv: pdflatex sets all, ą and ę in T1) and in Russian and Greek
// (other.csv: only LuaLaTeX or XeLaTeX), and writes their tables.
const namesScript = "data latin = load(\"latin.csv\")\ndata other = load(\"other.csv\")\n" +
	"model ml { Y = latin; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
	"model mo { Y = other; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n" +
	"fit ml with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1\nfit mo with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1\n" +
	"summary ml.C to \"names-latin.tex\"\nsummary ml.C to \"names-latin-m.tex\", layout = matrix\n" +
	"summary mo.C to \"names-other.tex\"\nsummary latin[\"Zażółć gęślą jaźń\", \"ρ\"] to \"names-levels.tex\"\n" +
	"summary other[\"Дети\"] to \"names-cyrillic.tex\"\n" +
	"summary ml.C to \"names-latin.md\"\nsummary mo.C to \"names-other.md\"\nsummary mo.C to \"names-other.csv\"\n"

var (
	latinNames = []string{"Dochód (zł)", "Příjem", "Zażółć gęślą jaźń", "Größe", "ρ", "x − y", "√n ≥ 2", "σ²"}
	otherNames = []string{"Дети", "Παιδεία γονέων", "Доход (₽)", "α"}
	// A paper's long wordings in Polish and Czech beside a Russian one,
	// a Greek letter and a symbol: a matrix packed to the text.
	mixedNames = []string{"Dochód (zł) ≥ średnia", "ρ of items", "Příjem domácnosti", "Дети",
		"Zadowolenie z życia ogólnie biorąc", "Wykształcenie ojca respondenta", "σ² of the scale",
		"Częstość kontaktów z sąsiadami"}
)

// namesSession writes latin.csv and other.csv (120 rows of 3 levels) to a
// new directory and runs namesScript there.
func namesSession(t *testing.T) (string, *recorder) {
	t.Helper()
	dir := t.TempDir()
	for file, names := range map[string][]string{"latin.csv": latinNames, "other.csv": otherNames, "mixed.csv": mixedNames} {
		var b strings.Builder
		b.WriteString("\"" + strings.Join(names, "\",\"") + "\"\n")
		for i := range 120 {
			for j := range names {
				if j > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, "%d", (i*(j+2)/5+i/3+j*i/7)%3)
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := New(Options{Dir: dir, Version: "9.9.9"})
	return dir, mustRun(t, s, namesScript)
}

// TestTeXTablesOfNamesInAnyScriptGolden pins the .tex files of tables
// whose names are Polish, Czech, German, Greek, Russian and mathematical
// (golden files in testdata/report, -update-tables rewrites them): a
// lone Greek letter and the symbols written as LaTeX commands, the %
// lines and the statement's output saying which need T1 under pdflatex
// and which LuaLaTeX or XeLaTeX; the .md and .csv files keep the names
// as they are.
func TestTeXTablesOfNamesInAnyScriptGolden(t *testing.T) {
	dir, out := namesSession(t)
	dir2, _ := namesSession(t)
	checkTableGoldens(t, dir, dir2, []string{"names-latin.tex", "names-latin-m.tex", "names-other.tex", "names-levels.tex", "names-cyrillic.tex"})
	stderr := out.stderr.String()
	if strings.Count(stderr, `note: the names hold ę, ą, which pdflatex sets only in the T1 font encoding: under pdflatex the table needs \usepackage[T1]{fontenc}`) != 3 {
		t.Errorf("the output does not say, for each of the 3 .tex files of latin's names, that they need T1:\n%s", stderr)
	}
	if strings.Count(stderr, "which pdflatex does not set") != 2 || strings.Count(stderr, `\usepackage[T1,T2A]{fontenc}`) != 1 || !strings.Contains(stderr, "note: the names hold Д, е, т, и, Π, α, ι, δ (and ") {
		t.Errorf("the output does not say, once each, that other's tables need LuaLaTeX or XeLaTeX, and that of its Cyrillic column alone or pdflatex with T2A:\n%s", stderr)
	}
	for file, names := range map[string][]string{"names-latin.md": latinNames, "names-other.md": otherNames, "names-other.csv": otherNames} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if !strings.Contains(string(b), n) {
				t.Errorf("%s does not hold the name %q as it is:\n%s", file, n, b)
			}
		}
		if strings.Contains(string(b), `\ensuremath`) || strings.Contains(string(b), "fontenc") {
			t.Errorf("%s writes a name as LaTeX or has a LaTeX note:\n%s", file, b)
		}
	}
}

// texPreamble is the preamble of a document that \inputs a .tex table,
// with the packages its % lines name.
func texPreamble(tex string) string {
	pre := "\\documentclass{article}\n\\usepackage{booktabs}\n"
	for _, pkg := range []string{`\usepackage[T1]{fontenc}`, `\usepackage{array}`, `\usepackage{fontspec}`} {
		if strings.Contains(tex, pkg) {
			pre += pkg + "\n"
		}
	}
	return pre
}

// latexErrors are the lines of a LaTeX log that say it failed: errors,
// a table wider than the text or a page, and a character left out.
var latexErrors = regexp.MustCompile(`(?m)^(!.*|Overfull \\[hv]box.*|Missing character.*)$`)

// TestTeXTablesOfNamesInAnyScriptCompile compiles the .tex tables of
// names in Polish, Czech, German and with a Greek letter and
// mathematical symbols under pdflatex with only the packages their %
// lines name (booktabs, T1, array): no error (before, ρ, σ, √ and ≥
// stopped it, and ą and ę without T1), no missing character, nothing
// wider than the text. The table of Russian and Greek names, whose %
// lines say it needs LuaLaTeX or XeLaTeX, compiles under lualatex with
// fontspec and DejaVu Serif with no missing character (a matrix of long
// Polish wordings beside a Russian name, names-mixed-m.tex, is wider than
// the text there, and fits at the width = they give for DejaVu Serif),
// and under
// pdflatex fails, as they say; a table of Cyrillic names alone compiles
// under pdflatex with T2A as the default font encoding, as its % lines
// say (where texlive-lang-cyrillic is installed). It needs pdflatex (and, for the second,
// lualatex, luaotfload and DejaVu Serif: skipped without); not in -short.
func TestTeXTablesOfNamesInAnyScriptCompile(t *testing.T) {
	pdflatex := pdflatexOrSkip(t)
	dir, _ := namesSession(t)
	compile := func(engine, base, doc string) (string, error) {
		if err := os.WriteFile(filepath.Join(dir, base+".tex"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(engine, "-interaction=nonstopmode", "-halt-on-error", base+".tex")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		log, _ := os.ReadFile(filepath.Join(dir, base+".log"))
		return string(log) + string(out), err
	}
	for _, name := range []string{"names-latin", "names-latin-m", "names-levels"} {
		tex, err := os.ReadFile(filepath.Join(dir, name+".tex"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(tex), `\usepackage[T1]{fontenc}`) {
			t.Errorf("%s.tex does not say it needs T1 (its names hold ą and ę)", name)
		}
		doc := texPreamble(string(tex)) + "\\tracinglostchars=1\n\\begin{document}\n\\begin{center}\n\\input{" + name + ".tex}\n\\end{center}\n\\end{document}\n"
		log, err := compile(pdflatex, "doc-"+name, doc)
		if err != nil {
			t.Errorf("%s: pdflatex failed: %v\n%s", name, err, latexErrors.FindAllString(log, -1))
			continue
		}
		for _, line := range latexErrors.FindAllString(log, -1) {
			t.Errorf("%s (pdflatex): %s", name, line)
		}
	}

	other, err := os.ReadFile(filepath.Join(dir, "names-other.tex"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(other), `% the names hold Д, е, т, и`) || !strings.Contains(string(other), `compile the document with LuaLaTeX or XeLaTeX and \usepackage{fontspec}`) {
		t.Errorf("names-other.tex does not say it needs LuaLaTeX or XeLaTeX:\n%s", other)
	}
	doc := strings.Replace(texPreamble(string(other)), "\\usepackage{fontspec}\n", "", 1) + "\\begin{document}\n\\input{names-other.tex}\n\\end{document}\n"
	if log, err := compile(pdflatex, "doc-other-pdflatex", doc); err == nil || !strings.Contains(log, "not set up for use with LaTeX") {
		t.Errorf("pdflatex compiled names-other.tex, which says it needs LuaLaTeX or XeLaTeX (%v):\n%s", err, latexErrors.FindAllString(log, -1))
	}
	// A table of Cyrillic names alone: pdflatex with T2A as the default
	// font encoding, as its % lines say.
	cyrillic, err := os.ReadFile(filepath.Join(dir, "names-cyrillic.tex"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cyrillic), `\usepackage[T1,T2A]{fontenc}`) {
		t.Errorf("names-cyrillic.tex does not say pdflatex sets it with T2A:\n%s", cyrillic)
	}
	if probe, _ := exec.Command("kpsewhich", "t2aenc.def").Output(); len(strings.TrimSpace(string(probe))) > 0 {
		doc := "\\documentclass{article}\n\\usepackage[T1,T2A]{fontenc}\n\\usepackage{booktabs}\n\\tracinglostchars=1\n\\begin{document}\n\\begin{center}\n\\input{names-cyrillic.tex}\n\\end{center}\n\\end{document}\n"
		log, err := compile(pdflatex, "doc-cyrillic-t2a", doc)
		if err != nil {
			t.Errorf("names-cyrillic.tex: pdflatex with T2A failed: %v\n%s", err, latexErrors.FindAllString(log, -1))
		}
		for _, line := range latexErrors.FindAllString(log, -1) {
			t.Errorf("names-cyrillic (pdflatex, T2A): %s", line)
		}
	} else {
		t.Log("T2A is not installed (texlive-lang-cyrillic): names-cyrillic.tex not compiled under pdflatex")
	}

	lualatex, err := exec.LookPath("lualatex")
	if err != nil {
		t.Skip("lualatex is not installed (apt-get install texlive-luatex)")
	}
	if probe, _ := exec.Command("kpsewhich", "luaotfload-main.lua").Output(); len(strings.TrimSpace(string(probe))) == 0 {
		t.Skip("luaotfload is not installed: fontspec cannot load a font under lualatex (apt-get install texlive-luatex)")
	}
	if fonts, _ := exec.Command("fc-list", ":family=DejaVu Serif:lang=ru", "family").Output(); len(fonts) == 0 {
		t.Skip("no DejaVu Serif with Cyrillic (apt-get install fonts-dejavu-core)")
	}
	// As the % lines say: fontspec, and a main font with the letters.
	doc = texPreamble(string(other)) + "\\setmainfont{DejaVu Serif}\n\\tracinglostchars=1\n\\begin{document}\n\\begin{center}\n\\input{names-other.tex}\n\\end{center}\n\\end{document}\n"
	log, err := compile(lualatex, "doc-other-lualatex", doc)
	if err != nil {
		t.Fatalf("lualatex failed: %v\n%s", err, latexErrors.FindAllString(log, -1))
	}
	for _, line := range latexErrors.FindAllString(log, -1) {
		// DejaVu Serif is wider than Computer Modern, which the width
		// estimate measures, as the % lines say: a table may be wider
		// than the text (below).
		if !strings.HasPrefix(line, "Overfull") {
			t.Errorf("names-other (lualatex): %s", line)
		}
	}
	// A matrix of long Polish and Czech wordings beside a Russian name,
	// packed to the text in Computer Modern's widths, is wider than the
	// text in DejaVu Serif (by 45 pt); at the width = the % lines give for
	// DejaVu Serif it fits. They said nothing of it.
	s := New(Options{Dir: dir, Version: "9.9.9"})
	mustRun(t, s, "data mixed = load(\"mixed.csv\")\nmodel mm { Y = mixed; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"+
		"fit mm with gibbs, iter = 40, warmup = 20, chains = 1, seed = 1\nsummary mm.C to \"names-mixed-m.tex\", layout = matrix")
	mixed, err := os.ReadFile(filepath.Join(dir, "names-mixed-m.tex"))
	if err != nil {
		t.Fatal(err)
	}
	advice := regexp.MustCompile(`with DejaVu Serif give width = the text width × 0\.87, width = (\d+) for an article's 345 pt`).FindSubmatch(mixed)
	if advice == nil {
		t.Fatalf("names-mixed-m.tex does not say what width = to give with DejaVu Serif:\n%s", mixed)
	}
	mustRun(t, s, "summary mm.C to \"names-mixed-m-dejavu.tex\", layout = matrix, width = "+string(advice[1]))
	for _, name := range []string{"names-mixed-m", "names-mixed-m-dejavu"} {
		tex, err := os.ReadFile(filepath.Join(dir, name+".tex"))
		if err != nil {
			t.Fatal(err)
		}
		doc := texPreamble(string(tex)) + "\\setmainfont{DejaVu Serif}\n\\tracinglostchars=1\n\\begin{document}\n\\input{" + name + ".tex}\n\\end{document}\n"
		log, err := compile(lualatex, "doc-"+name+"-lualatex", doc)
		if err != nil {
			t.Fatalf("%s: lualatex failed: %v\n%s", name, err, latexErrors.FindAllString(log, -1))
		}
		overfull := strings.Contains(log, "Overfull \\hbox")
		if name == "names-mixed-m" && !overfull {
			t.Errorf("%s at the default width fits the text in DejaVu Serif: the note that it does not is wrong", name)
		}
		if name == "names-mixed-m-dejavu" {
			for _, line := range latexErrors.FindAllString(log, -1) {
				t.Errorf("%s (lualatex, width = %s): %s", name, advice[1], line)
			}
		}
	}
}

// TestPdfLaTeXSetsTheCharactersItIsSaidTo compiles under pdflatex each
// character of pdflatexOT1 as it is in a document of the defaults, each
// of pdflatexT1 with \usepackage[T1]{fontenc} (and checks that it fails
// without it: else it would not need T1), and each command of
// texGreekLetters and texSymbols, in a document of the defaults: none may
// give an error or a missing character. It needs pdflatex; not in -short.
func TestPdfLaTeXSetsTheCharactersItIsSaidTo(t *testing.T) {
	pdflatex := pdflatexOrSkip(t)
	dir := t.TempDir()
	// failures compiles each text of texts in a box after a marker, and
	// returns the texts whose box gave an error or a missing character.
	failures := func(preamble string, texts []string) map[string]string {
		var b strings.Builder
		b.WriteString("\\documentclass{article}\n" + preamble + "\\tracinglostchars=1\n\\begin{document}\n")
		for i, s := range texts {
			fmt.Fprintf(&b, "\\typeout{@@ %d}\\setbox0\\hbox{%s}\n", i, s)
		}
		b.WriteString("\\typeout{@@ end}\n\\end{document}\n")
		if err := os.WriteFile(filepath.Join(dir, "chars.tex"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(pdflatex, "-interaction=nonstopmode", "chars.tex")
		cmd.Dir = dir
		cmd.Run() // errors are read from the log
		log, err := os.ReadFile(filepath.Join(dir, "chars.log"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(log), "@@ end") {
			t.Fatalf("pdflatex stopped before the end:\n%s", log)
		}
		failed := map[string]string{}
		current := -1
		for _, line := range strings.Split(string(log), "\n") {
			if _, err := fmt.Sscanf(line, "@@ %d", &current); err == nil {
				continue
			}
			if current >= 0 && (strings.HasPrefix(line, "!") || strings.HasPrefix(line, "Missing character")) {
				if _, ok := failed[texts[current]]; !ok {
					failed[texts[current]] = line
				}
			}
		}
		return failed
	}
	// At most 50 a run: pdflatex stops after 100 errors.
	check := func(what, preamble string, texts []string, wantFail bool) {
		for start := 0; start < len(texts); start += 50 {
			chunk := texts[start:min(start+50, len(texts))]
			failed := failures(preamble, chunk)
			for _, s := range chunk {
				if msg, ok := failed[s]; ok != wantFail {
					if wantFail {
						t.Errorf("%s: %q compiles, so it does not need T1", what, s)
					} else {
						t.Errorf("%s: %q: %s", what, s, msg)
					}
				}
			}
		}
	}
	runes := func(s string) []string {
		var out []string
		for _, r := range s {
			out = append(out, string(r))
		}
		return out
	}
	check("pdflatexOT1 in the defaults", "", runes(pdflatexOT1), false)
	check("pdflatexT1 with T1", "\\usepackage[T1]{fontenc}\n", runes(pdflatexT1), false)
	check("pdflatexT1 in the defaults", "", runes(pdflatexT1), true)
	var commands []string
	for r := range texGreekLetters {
		commands = append(commands, texText(string(r)))
	}
	for r := range texSymbols {
		if !unicode.IsPrint(r) {
			t.Errorf("texSymbols has %U", r)
		}
		commands = append(commands, texText(string(r)))
	}
	check("texGreekLetters and texSymbols in the defaults", "", commands, false)
}

// TestTeXTextWidthIsWhatPdfLaTeXMeasures: the width a .tex table
// estimates for a name of letters outside ASCII is what pdflatex sets
// (\settowidth, the T1 font encoding) of what texText writes: every
// character of texCharWidths, and names mixing them. It counted each as
// 10 pt, where \ensuremath{\rho} is 5.17, \ensuremath{\geq} 7.78 and ó 5,
// so that a matrix of such names was split or set as paragraphs before
// the text was full; a letter and its combining accent (a CSV saved on
// macOS) counted 10 pt twice, where texText writes one letter.
func TestTeXTextWidthIsWhatPdfLaTeXMeasures(t *testing.T) {
	names := []string{"Dochód (zł) ≥ średnia", "ρ of items", "σ² of the scale", "Příjem domácnosti",
		"Częstość kontaktów z sąsiadami", "Δincome ≤ √n", "Größe, Ægir & Œuvre", "Dochódy (zł)",
		"Docho\u0301d (zł)", "Zadowolenie z życia ogólnie biorąc"}
	// Short: the widths pdflatex gave when this test was written.
	for _, tc := range []struct {
		name string
		want float64
	}{{"ρ", 5.17}, {"≥", 7.78}, {"ó", 5.00}, {"ρ of items", 5.17 + 3.33 + 5 + 3.06 + 3.33 + 2.78 + 3.89 + 4.44 + 8.33 + 3.94},
		{"Dochód", 7.64 + 5 + 4.44 + 5.56 + 5 + 5.56}, {"Docho\u0301d", 7.64 + 5 + 4.44 + 5.56 + 5 + 5.56}} {
		if got := texTextWidth(tc.name); math.Abs(got-tc.want) > 0.015 {
			t.Errorf("texTextWidth(%q) = %.2f pt, want %.2f", tc.name, got, tc.want)
		}
	}
	pdflatex := pdflatexOrSkip(t)
	var texts []string
	for r := range texCharWidths {
		texts = append(texts, string(r))
	}
	texts = append(texts, names...)
	// measure sets texts in a font encoding (those of pdflatexT1 only in
	// T1) and returns the width of each, by its index.
	measure := func(encoding string) map[int]float64 {
		var doc strings.Builder
		doc.WriteString("\\documentclass[10pt]{article}\n\\usepackage[" + encoding + "]{fontenc}\n\\newlength\\w\n\\begin{document}\n")
		for i, s := range texts {
			if encoding == "T1" || !strings.ContainsAny(s, pdflatexT1) {
				fmt.Fprintf(&doc, "\\settowidth{\\w}{%s}\\typeout{width %d \\the\\w}\n", texText(s), i)
			}
		}
		doc.WriteString("\\end{document}\n")
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "w.tex"), []byte(doc.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(pdflatex, "-interaction=nonstopmode", "-halt-on-error", "w.tex")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pdflatex (%s): %v\n%s", encoding, err, out)
		}
		log, err := os.ReadFile(filepath.Join(dir, "w.log"))
		if err != nil {
			t.Fatal(err)
		}
		widths := map[int]float64{}
		for _, m := range regexp.MustCompile(`width (\d+) ([0-9.]+)pt`).FindAllStringSubmatch(string(log), -1) {
			i, _ := strconv.Atoi(m[1])
			widths[i], _ = strconv.ParseFloat(m[2], 64)
		}
		return widths
	}
	ot1, t1 := measure("OT1"), measure("T1")
	for i, s := range texts {
		got := max(ot1[i], t1[i])
		if got == 0 {
			t.Errorf("%q: pdflatex gave no width", s)
			continue
		}
		est := texTextWidth(s)
		if i < len(texCharWidths) {
			// One character: its width rounded up to 0.01 pt, the wider
			// of the two encodings.
			if est < got || est > got+0.01 {
				t.Errorf("%q (U+%04X): estimated %.2f pt, pdflatex sets %.3f", s, []rune(s)[0], est, got)
			}
			continue
		}
		// A name: its characters' widths, without the kerns between
		// them, as for a name of ASCII letters ("Dochod (zl)" is 51.53
		// so, 51.81 set): within 1%, where 10 pt a character was 3 to
		// 15% too wide.
		if math.Abs(est-got) > 0.01*got {
			t.Errorf("%q: estimated %.2f pt, pdflatex sets %.2f", s, est, got)
		}
	}
}
