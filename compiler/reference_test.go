package compiler

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// reference is docs/language.md, the language reference.
func reference(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// referenceExamples returns the copulang code blocks of the reference, in
// order, and fails on any fenced block that is neither copulang nor text.
func referenceExamples(t *testing.T, doc string) []string {
	t.Helper()
	var blocks []string
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		if info != "copulang" && info != "text" {
			t.Errorf("line %d: a fenced block of %q: mark copulang code as ```copulang (it is run) and output as ```text", i+1, info)
		}
		var b strings.Builder
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			b.WriteString(lines[i] + "\n")
		}
		if info == "copulang" {
			blocks = append(blocks, b.String())
		}
	}
	return blocks
}

// tableRows returns the cells of the rows of the markdown table whose header
// row starts with header.
func tableRows(doc, header string) [][]string {
	var rows [][]string
	in := false
	for _, l := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(l, "| "+header+" |"):
			in = true
		case in && strings.HasPrefix(l, "|---"):
		case in && strings.HasPrefix(l, "|"):
			cells := strings.Split(strings.Trim(l, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			rows = append(rows, cells)
		default:
			in = false
		}
	}
	return rows
}

var codeSpan = regexp.MustCompile("`([^`]*)`")

// TestReferenceCoversTheLanguage compares docs/language.md with the
// compiler's own word lists: its statements table names every statement
// keyword and nothing else (issue 17: it promised a compare statement that
// did not parse); its arguments table lists exactly the arguments and
// settings the checks accept; and it mentions every distribution, method,
// plot kind and other word.
func TestReferenceCoversTheLanguage(t *testing.T) {
	doc := reference(t)
	var statements []string
	for _, row := range tableRows(doc, "statement") {
		m := codeSpan.FindStringSubmatch(row[0])
		if m == nil {
			t.Errorf("statements row %q has no code", row[0])
			continue
		}
		kw, _, _ := strings.Cut(m[1], " ")
		if !slices.Contains(statements, kw) {
			statements = append(statements, kw)
		}
	}
	// The last row is the statement without a keyword: an expression alone.
	if want := append(Keywords(), "EXPR"); !slices.Equal(statements, want) {
		t.Errorf("the statements table has %v, the grammar %v (in its order)", statements, want)
	}

	documented := map[string][]string{}
	for _, row := range tableRows(doc, "statement or call") {
		owner := strings.Trim(row[0], "`")
		for _, m := range codeSpan.FindAllStringSubmatch(row[1], -1) {
			documented[owner] = append(documented[owner], m[1])
		}
	}
	args := Arguments()
	for _, owner := range slices.Sorted(maps.Keys(args)) {
		if !slices.Equal(documented[owner], args[owner]) {
			t.Errorf("the reference gives %s the arguments %v; the compiler takes %v", owner, documented[owner], args[owner])
		}
	}
	for owner := range documented {
		if _, ok := args[owner]; !ok {
			t.Errorf("the reference lists arguments of %s, which takes none", owner)
		}
	}

	for _, d := range Distributions() {
		if !strings.Contains(doc, d+"(") {
			t.Errorf("the reference never writes the distribution %s(...)", d)
		}
	}
	for _, m := range Methods() {
		if !strings.Contains(doc, "`"+m+"`") {
			t.Errorf("the reference never names the method `%s`", m)
		}
	}
	for _, k := range PlotKinds() {
		if !strings.Contains(doc, "`plot "+k+" ") {
			t.Errorf("the reference has no example of `plot %s ...`", k)
		}
	}
	for _, w := range append(OtherWords(), members()...) {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(doc) {
			t.Errorf("the reference never uses %s", w)
		}
	}

	// A lone word in code is a word of the language, an argument, a name
	// the examples bind or a column of the shipped data, or a word of the
	// output formats: not a statement that does not exist.
	known := map[string]bool{}
	for _, list := range [][]string{Keywords(), Distributions(), Methods(), PlotKinds(), OtherWords(), members(),
		{"p", "n", "Y", "Z", "NA", "NaN", "income", "degree", "age"}, // model and data names
		{"mode", "p_mode", "probs", "q5", "q95", "q10", "q90", "param", "label", "row", "source_row", "source_row_", "column", "ppp", "p_adj", "mean_rmse", "se_diff", "mcse_diff", "p_positive", "Inf"},                        // output formats
		{"model_kind", "columns", "data_source", "data_options", "data_sha256", "data_derived", "data_rows", "method", "sampler", "interrupted", "fit_file", "quantity", "extensions", "extension_1", "extension_1_iterations"}, // an export's provenance
		{"copulang", "compiler", "session", "sha256sum"}} { // the tool, its packages, and a tool the provenance names
		for _, w := range list {
			known[w] = true
		}
	}
	for _, names := range args {
		for _, w := range names {
			known[w] = true
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^(?:data|model) (\w+)`).FindAllStringSubmatch(strings.Join(referenceExamples(t, doc), "\n"), -1) {
		known[m[1]] = true
	}
	for _, m := range codeSpan.FindAllStringSubmatch(doc, -1) {
		placeholder := regexp.MustCompile(`^(?:[A-Z][A-Z0-9]*|Y\d+)$`).MatchString(m[1]) // N, PATH, Y1
		if regexp.MustCompile(`^[A-Za-z_]\w*$`).MatchString(m[1]) && !known[m[1]] && !placeholder {
			t.Errorf("the reference writes `%s`, which is no word of the language", m[1])
		}
	}
}

// TestLanguageExamplesAreTheReferences: testdata/language_examples.cop
// (which this package checks and the session runs) and dsl's copy hold the
// copulang blocks of docs/language.md, verbatim (go test -update rewrites
// them).
func TestLanguageExamplesAreTheReferences(t *testing.T) {
	blocks := referenceExamples(t, reference(t))
	if len(blocks) < 8 {
		t.Fatalf("%d copulang blocks in the reference", len(blocks))
	}
	want := "# The copulang blocks of docs/language.md, as written there (go test ./compiler -update).\n\n" + strings.Join(blocks, "\n")
	for _, path := range []string{"testdata/language_examples.cop", "../dsl/testdata/language_examples.cop"} {
		if *update {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is not the reference's examples (go test ./compiler -update)", path)
		}
	}
}

// TestReferenceNamesThePositionalArguments: the reference said that the
// first argument of load and simulate may be given without its name, and
// the checks take FactorModel(2), LKJ(2), Normal(2) and hmc(1) as well
// (found when FactorModel(2) ran as FactorModel(k = 2) in a review of a
// factor-model analysis). The sentence lists exactly the calls whose first
// parameter may be given without its name.
func TestReferenceNamesThePositionalArguments(t *testing.T) {
	doc := strings.Join(strings.Fields(reference(t)), " ") // a sentence may break anywhere
	before, _, ok := strings.Cut(doc, "may be given without its name")
	if !ok {
		t.Fatal("the reference has no sentence on arguments given without their names")
	}
	sentence := before[strings.LastIndex(before, "(the first argument of"):]
	var documented []string
	for _, m := range codeSpan.FindAllStringSubmatch(sentence, -1) {
		documented = append(documented, m[1])
	}
	var positional []string
	for _, call := range []string{"load", "simulate", "FullCopula", "FactorCopula", "InverseWishart", "LKJ", "FactorModel",
		"Normal", "GDP", "auto", "hmc", "interweave"} {
		if ps := parameters(call); len(ps) > 0 && ps[0].positional {
			positional = append(positional, call)
		}
	}
	if !slices.Equal(documented, positional) {
		t.Errorf("the reference says the first argument of %v may be given without its name; the checks take it so for %v", documented, positional)
	}
}
