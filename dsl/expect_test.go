package dsl

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2"
)

// TestErrorsNeverShowTheGrammar writes every statement keyword followed by
// truncated and invalid continuations, and every statement of the language
// examples cut short after each of its tokens, and checks that no error
// speaks the grammar's language: rule names (Ident, NamedArg,
// CompareItem), token classes (<sep>), groups and repetition marks.
func TestErrorsNeverShowTheGrammar(t *testing.T) {
	if !ruleName.MatchString("expected CompareItem") || !ruleName.MatchString("Ident") || ruleName.MatchString("model m") {
		t.Fatalf("the rule names are not those of the grammar: %v", ruleName)
	}
	continuations := []string{"", " ", " m", " m,", " m ,", " m, x", " m, x =", " m, x 1", " )", " m {",
		" m { Y", " m { Y = }", " m { Z ~ }", " m { Y ordinal }", " m with", " m with (", " m with hmc(", " m to",
		" m to x", " m vs", " trace", " trace m vs", " trace m vs 3", " 3", " m = ", " m {}", " m m", " m, 3",
		" m.C,", " m.C, prob", " x = 1", " fit", " fit m,", " fit m with", " m.", " m.C[", " m.C[1,", " m.C[1,,",
		" (", " [", " {", " {a", ` "x"`, " m =\n", " m,\n", " m, iter = 1,\nfit m", " m\n)", " m;", " m, x =;"}
	var sources []string
	for _, kw := range StatementKeywords() {
		for _, c := range continuations {
			sources = append(sources, kw+c)
		}
	}
	// A statement of each kind, cut before each of its tokens and
	// followed by something out of place.
	for _, line := range []string{
		`data x = load("x.csv", sep = ";", order = {[a, "b"]: [lo, hi], *: [x, y]})`,
		`data s = simulate(FactorCopula(p = 4, k = 1), n = 10)`,
		"model m { Y = gss[INC, DEG]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }",
		"explain fit m with hmc(T = pi / 2), iter = 2000",
		"fit m with hmc(T = 1), iter = 2000, warmup = 500",
		"extend m, iter = 1000",
		"summary m.C[1, 2], prob = 0.8",
		"plot rmse m vs sim",
		`impute m to "c.csv", draws = "d.csv"`,
		`export m to "d.csv"`,
		"show [m1, m2]",
		"check m[INC, DEG], draws = 400",
		"compare m1, m2, folds = 5",
		`print "a", -m.regress(Y ~ X + Z)`,
		"help fit",
	} {
		for _, tok := range scan("", []byte(line)).tokens[1:] {
			for _, junk := range []string{"", ")", "]", "}", ",", "=", "~", "3", "x", "with", ";", "\n)", ".", " to", " vs"} {
				sources = append(sources, line[:tok.Pos.Offset]+junk)
			}
		}
	}

	for _, src := range sources {
		// Every rule participle names is one expect knows, so that no
		// message loses its "expected" part.
		if s := scan("", []byte(src)); s.err == nil {
			_, err := parseTokens(s.tokens)
			var ute *participle.UnexpectedTokenError
			if errors.As(err, &ute) {
				if _, rule, ok := strings.Cut(ute.Message(), " (expected "); ok {
					rule = strings.TrimSuffix(rule, ")")
					if expect(rule, spotOf(s.tokens, ute.Unexpected.Pos.Offset)).what == "" {
						t.Errorf("%q: no words for the rule %s", src, rule)
					}
				}
			}
		}
		_, err := Parse("", []byte(src))
		var list ErrorList
		if err == nil {
			continue
		}
		if !errors.As(err, &list) {
			t.Fatalf("%q: %T", src, err)
		}
		for _, e := range list {
			if g := grammarIn(e); g != "" {
				t.Errorf("%q: %q (hint %q) shows the grammar: %s", src, e.Msg, e.Hint, g)
			}
		}
	}
}

var (
	// ruleName matches the name of a rule of the grammar.
	ruleName = func() *regexp.Regexp {
		var rules []string
		for _, line := range strings.Split(parser.String(), "\n") {
			if name, _, ok := strings.Cut(line, " = "); ok {
				rules = append(rules, regexp.QuoteMeta(name))
			}
		}
		return regexp.MustCompile(`\b(` + strings.Join(rules, "|") + `)\b`)
	}()
	// quoted matches what a message quotes from the source: a character
	// or a token.
	quoted       = regexp.MustCompile(`'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"`)
	grammarMarks = regexp.MustCompile(`<[a-z]+>|\)[?*+]|\|`)
)

// grammarIn returns the grammar's syntax that e's message or hint shows,
// outside what they quote from the source, or "".
func grammarIn(e *Error) string {
	msg := quoted.ReplaceAllString(e.Msg, `""`)
	hint := quoted.ReplaceAllString(e.Hint, `""`)
	if m := ruleName.FindString(msg + " " + hint); m != "" {
		return "the rule " + m
	}
	if m := grammarMarks.FindString(msg + " " + hint); m != "" {
		return m
	}
	if strings.Contains(msg, "?") {
		return "?"
	}
	return ""
}
