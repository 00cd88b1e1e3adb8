package dsl

import (
	"regexp"
	"slices"
)

// grammarWord matches a quoted word in participle's EBNF of the grammar.
var grammarWord = regexp.MustCompile(`"([A-Za-z_][A-Za-z0-9_]*)"`)

// GrammarWords returns the words the grammar itself spells out — the
// statement keywords and connectives such as with, to and vs — in order of
// first appearance, derived from the built parser, for editors that
// highlight them.
func GrammarWords() []string {
	var out []string
	for _, m := range grammarWord.FindAllStringSubmatch(parser.String(), -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}
