package session

import (
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
	"github.com/copulang/copulang/inference"
)

// This file holds what an editor asks of the session between cells:
// completion, documentation and whether a cell is complete.

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// wordAt returns the identifier around byte offset cursor as [start, end).
func wordAt(code string, cursor int) (start, end int) {
	cursor = max(0, min(cursor, len(code)))
	start, end = cursor, cursor
	for start > 0 && isIdentByte(code[start-1]) {
		start--
	}
	for end < len(code) && isIdentByte(code[end]) {
		end++
	}
	return start, end
}

// Complete returns the completions of the identifier ending at byte offset
// cursor and the byte range they replace: after `m.` the members the
// statement takes there (members), column names
// inside `[...]`, a setting's words after `sort =`, `stat =` or
// `loadings =`, the simulated data sets after `vs`, a statement's targets
// after its keyword (the models after fit, extend, explain, impute, export,
// check, compare and plot KIND; every binding after show and summary; the
// documented words after help), plot kinds after `plot`, methods after
// `with`, distributions after `~`, and otherwise statements, bindings,
// functions and distributions; in a load call, the file's columns and, in
// order = {COL: [...]}, the column's labels (loadSiteAt). Inside a string
// it completes file paths (completePath); inside a comment, nothing.
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	cursor = max(0, min(cursor, len(code)))
	b := s.cellView(code[:cursor])
	if inComment(code[:cursor]) {
		return nil, cursor, cursor // a comment is prose
	}
	if q := openString(code[:cursor]); q >= 0 {
		if names := s.loadColumnsAt(code[:q-1]); names != nil {
			return escapedPrefixed(names, code[q:cursor]), q, cursor
		}
		if labels := s.loadLabelsAt(code[:q-1]); labels != nil {
			return escapedPrefixed(labels, code[q:cursor]), q, cursor
		}
		if labels := s.whereLabelsAt(b, code[:q-1]); labels != nil {
			// where sat >= "ag: the column's labels.
			return escapedPrefixed(labels, code[q:cursor]), q, cursor
		}
		if values := s.givenValuesAt(b, code[:q-1]); values != nil {
			// predict m[degree] given sex = "f: a text column's labels.
			var labels []string
			for _, v := range values {
				if l, err := strconv.Unquote(v); err == nil {
					labels = append(labels, l)
				}
			}
			return escapedPrefixed(labels, code[q:cursor]), q, cursor
		}
		if cols := s.givenColumnsAt(b, code[:q-1]); cols != nil {
			return escapedPrefixed(cols, code[q:cursor]), q, cursor
		}
		if src := s.whereColumnsAt(b, code[:q-1]); src != nil {
			return escapedPrefixed(src, code[q:cursor]), q, cursor
		}
		if loadingsFactorIndexAt(code[:q-1]) {
			return nil, q, cursor // Lambda[income, "…: a factor number goes there
		}
		if owner := openBracketOwner(code[:q-1]); s.columnsOf(b, owner) != nil {
			return escapedPrefixed(unlisted(s.columnsOf(b, owner), listedInIndex(code[:q-1])), code[q:cursor]), q, cursor
		}
		if owner := regressOwner(code[:q-1]); s.columnsOf(b, owner) != nil {
			return escapedPrefixed(unlisted(s.columnsOf(b, owner), listedInFormula(code[:q-1])), code[q:cursor]), q, cursor
		}
		return s.completePath(code[:q-1], code[q:cursor]), q, cursor
	}
	start = cursor
	for start > 0 && isIdentByte(code[start-1]) {
		start--
	}
	end = cursor
	prefix := code[start:cursor]
	before := strings.TrimRight(code[:start], " \t")
	var candidates []string
	switch {
	case strings.HasSuffix(before, ".") && start == len(before):
		candidates = s.members(b, before[:len(before)-1])
	case s.loadColumnsAt(code[:start]) != nil:
		// load("survey.csv", drop = [id, ...], order = {q1: ...}): the
		// file's columns, read from its header.
		candidates = columnTexts(s.loadColumnsAt(code[:start]))
	case s.loadLabelsAt(code[:start]) != nil:
		// order = {q1: ["disagree", ...]}: the column's cells, quoted.
		for _, label := range s.loadLabelsAt(code[:start]) {
			candidates = append(candidates, strconv.Quote(label))
		}
	case s.whereColumnsAt(b, code[:start]) != nil:
		// data older = gss[income] where ag: the source's columns, any of
		// them (a condition may test a column the selection leaves out).
		candidates = columnTexts(s.whereColumnsAt(b, code[:start]))
	case s.whereLabelsAt(b, code[:start]) != nil:
		// where sat >= : the labels of a text column, quoted.
		for _, label := range s.whereLabelsAt(b, code[:start]) {
			candidates = append(candidates, strconv.Quote(label))
		}
	case s.givenColumnsAt(b, code[:start]) != nil:
		// predict m[degree] given inc: the model's columns not given yet
		// nor predicted; after a comma, predict's settings too.
		candidates = columnTexts(s.givenColumnsAt(b, code[:start]))
		if strings.HasSuffix(strings.TrimRight(code[:start], " \t\r\n"), ",") {
			candidates = append(candidates, compiler.Arguments()["predict"]...)
		}
	case s.givenValuesAt(b, code[:start]) != nil:
		// predict m[degree] given income = : the column's observed values,
		// in their order (lowest first), not sorted as text.
		for _, v := range s.givenValuesAt(b, code[:start]) {
			if strings.HasPrefix(v, prefix) {
				matches = append(matches, v)
			}
		}
		return matches, start, end
	case inWhere(code[:start]):
		// After a whole test, the words that join another; where a
		// number or a column of data not bound goes, nothing.
		if t := strings.TrimRight(code[:start], " \t"); len(t) < start && strings.ContainsAny(t[len(t)-1:], "0123456789\")]") {
			candidates = []string{"and", "or"}
		}
	case loadingsFactorIndexAt(code[:start]):
		// f.Lambda[income, : the index's second place is a factor's
		// number, which completion does not offer, not a column.
	case s.columnsOf(b, openBracketOwner(code[:start])) != nil:
		// gss[income, de: the columns the index does not list yet, since
		// a column twice is an error (Y, summary) or the diagonal (m.C).
		for _, name := range unlisted(s.columnsOf(b, openBracketOwner(code[:start])), listedInIndex(code[:start])) {
			candidates = append(candidates, columnText(name))
		}
	case s.columnsOf(b, regressOwner(code[:start])) != nil:
		// A formula names columns as an index does (or by number), each
		// once.
		for _, name := range unlisted(s.columnsOf(b, regressOwner(code[:start])), listedInFormula(code[:start])) {
			candidates = append(candidates, columnText(name))
		}
	case differenceLeft(b, before) != nil:
		// summary a.C - : what a difference's right side may be, the
		// models and their part the left side selects (b, b.C).
		candidates = differenceLeft(b, before)
	case settingValues(before) != nil:
		candidates = settingValues(before) // sort = rhat, stat = kendall
		if heatmapOrderAt(before) {
			// plot heatmap young.C, order = old: another's order.
			candidates = append(candidates, s.targets(b, "plot")...)
		}
	case lastWord(before) == "vs":
		candidates = s.simulatedNames(b) // plot rmse m vs sim
	case targetOf(before) != "":
		candidates = s.targets(b, targetOf(before))
	case lastWord(before) == "plot":
		candidates = compiler.PlotKinds()
	case lastWord(before) == "with":
		candidates = compiler.Methods()
	case strings.HasSuffix(before, "~"):
		candidates = compiler.Distributions()
	case settingNames(before) != nil:
		candidates = settingNames(before)
		if t := strings.TrimRight(before, " \t"); strings.HasSuffix(t, "(") && openParenOwner(t) == "simulate" {
			candidates = append(candidates, compiler.SimulationSpecs()...) // its spec, unnamed
		}
		if strings.HasPrefix(strings.TrimSpace(statementText(before)), "compare") {
			candidates = append(candidates, s.targets(b, "compare")...) // compare m1, m2, ...
		}
	default:
		candidates = append(candidates, compiler.Keywords()...)
		candidates = append(candidates, compiler.Distributions()...)
		candidates = append(candidates, b.names...)
		candidates = append(candidates, compiler.OtherWords()...)
	}
	seen := map[string]bool{}
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) && !seen[c] {
			seen[c] = true
			matches = append(matches, c)
		}
	}
	sort.Strings(matches)
	return matches, start, end
}

// predictStart matches a predict statement up to its given: predict
// MODEL or MODEL[...], then given; group 1 is the model, group 2 its
// index's text.
var predictStart = regexp.MustCompile(`^\s*predict\s+([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?\s*given(?:\s|$)`)

// givenItem matches one COL = of a predict's given values: group 1 a
// name, group 2 a quoted name.
var givenItem = regexp.MustCompile(`(?:^|,)\s*(?:([A-Za-z_][A-Za-z0-9_]*)|("(?:[^"\\]|\\.)*"))\s*=`)

// predictGiven returns, when text ends in a predict's given values, the
// model, the columns the statement names so far (its targets and given
// columns) and the given values' text.
func (s *Session) predictGiven(b *bindingsView, text string) (model *Model, named []string, given string) {
	stmt := statementText(text)
	loc := predictStart.FindStringSubmatchIndex(stmt)
	if loc == nil {
		return nil, nil, ""
	}
	m, ok := b.models[stmt[loc[2]:loc[3]]]
	if !ok {
		return nil, nil, ""
	}
	if loc[4] >= 0 {
		named = listedInIndex(stmt[loc[4] : loc[5]-1])
	}
	given = stmt[loc[1]:]
	for _, g := range givenItem.FindAllStringSubmatch(given, -1) {
		name := g[1]
		if g[2] != "" {
			name, _ = strconv.Unquote(g[2])
		}
		named = append(named, name)
	}
	return m, named, given
}

// givenColumnsAt returns, when a column comes next in a predict's given
// values (after given or a comma), the model's columns that the
// statement does not name yet; nil otherwise.
func (s *Session) givenColumnsAt(b *bindingsView, text string) []string {
	m, named, given := s.predictGiven(b, text)
	if m == nil {
		return nil
	}
	given = strings.TrimRight(given, " \t\r\n")
	if given != "" && !strings.HasSuffix(given, ",") {
		return nil
	}
	cols := unlisted(m.Names(), named)
	if cols == nil {
		cols = []string{}
	}
	return cols
}

// givenValuesAt returns, when text ends just after COL = in a predict's
// given values, the column's observed values as a given value writes
// them: numbers, or a text column's labels quoted; nil otherwise.
func (s *Session) givenValuesAt(b *bindingsView, text string) []string {
	m, _, given := s.predictGiven(b, text)
	if m == nil {
		return nil
	}
	given = strings.TrimRight(given, " \t\r\n")
	items := givenItem.FindAllStringSubmatchIndex(given, -1)
	if len(items) == 0 || items[len(items)-1][1] != len(given) {
		return nil
	}
	last := items[len(items)-1]
	name := ""
	if last[2] >= 0 {
		name = given[last[2]:last[3]]
	} else {
		name, _ = strconv.Unquote(given[last[4]:last[5]])
	}
	j := slices.Index(m.Names(), name)
	if j < 0 {
		return nil
	}
	var values []float64
	if m.Fit != nil {
		values = m.Fit.Levels(j)
	}
	dj := m.Cols[j]
	if values == nil {
		if dj >= len(m.Data.Columns) {
			// A model of the cell on data the cell loads, whose cells
			// are not read yet: no value to offer, nor anything else.
			return []string{}
		}
		seen := map[float64]bool{}
		for _, v := range m.Data.Columns[dj] {
			if !math.IsNaN(v) && !seen[v] {
				seen[v] = true
				values = append(values, v)
			}
		}
		slices.Sort(values)
	}
	out := make([]string, len(values))
	for k, v := range values {
		if m.Data.labelsOf(dj) != nil {
			out[k] = strconv.Quote(exactValue(m.Data, dj, v))
		} else {
			out[k] = exactValue(m.Data, dj, v)
		}
	}
	return out
}

// whereStart matches a data statement up to its where: data NAME =
// SOURCE or SOURCE[...], then where; group 1 is the source.
var whereStart = regexp.MustCompile(`^\s*data\s+[A-Za-z_][A-Za-z0-9_]*\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*(where)(?:\s|\(|$)`)

// whereSource returns, when text ends in a data statement's where
// condition, the source data set's name and the condition so far.
func whereSource(text string) (source, cond string) {
	stmt := statementText(text)
	m := whereStart.FindStringSubmatchIndex(stmt)
	if m == nil {
		return "", ""
	}
	return stmt[m[2]:m[3]], stmt[m[4]:]
}

// inWhere reports whether text ends in a data statement's where condition.
func inWhere(text string) bool {
	source, _ := whereSource(text)
	return source != ""
}

// whereColumnsAt returns the columns of the source of the where condition
// text ends in, when a column comes next: after where, and, or, not or an
// opening parenthesis; nil otherwise.
func (s *Session) whereColumnsAt(b *bindingsView, text string) []string {
	source, cond := whereSource(text)
	if source == "" {
		return nil
	}
	cond = strings.TrimRight(cond, " \t\n")
	switch w := lastIdent(cond); {
	case strings.HasSuffix(cond, "("):
	case w == "where" || w == "and" || w == "or" || w == "not":
		if len(cond) > len(w) && isIdentByte(cond[len(cond)-len(w)-1]) {
			return nil
		}
	default:
		return nil
	}
	d, ok := b.data[source]
	if !ok {
		return nil
	}
	return d.Names
}

// whereLabelsAt returns the labels of a text column that a where
// condition compares, when text ends just after the comparison (sat >=,
// sat in [, or sat in ["agree", ); nil otherwise.
func (s *Session) whereLabelsAt(b *bindingsView, text string) []string {
	source, cond := whereSource(text)
	if source == "" {
		return nil
	}
	cond = strings.TrimRight(cond, " \t\n")
	if i := strings.LastIndexByte(cond, '['); i >= 0 && !strings.Contains(cond[i:], "]") {
		// sat in ["agree", : the column before in.
		before := strings.TrimRight(cond[:i], " \t")
		rest, ok := strings.CutSuffix(before, "in")
		if !ok || lastIdent(rest) != "" {
			return nil
		}
		cond = strings.TrimRight(rest, " \t") + " =="
	}
	op := strings.TrimRightFunc(cond, func(r rune) bool { return strings.ContainsRune("=!<>", r) })
	if op == cond {
		return nil
	}
	col := strings.TrimRight(op, " \t")
	name := lastIdent(col)
	if strings.HasSuffix(col, `"`) {
		if q := strings.LastIndexByte(col[:len(col)-1], '"'); q >= 0 {
			name, _ = strconv.Unquote(col[q:])
		}
	}
	d, ok := b.data[source]
	if !ok {
		return nil
	}
	j := d.column(name)
	if j < 0 || j >= len(d.Labels) || d.Labels[j] == nil {
		return nil
	}
	return d.Labels[j]
}

// columnText is a column name as an index names it: as it is when it is an
// identifier, else as a string ("my col", "1st", "âge"), since the bare
// name would not parse.
func columnText(name string) string {
	if dsl.IsName(name) {
		return name
	}
	return strconv.Quote(name)
}

// columnTexts is columnText of every name.
func columnTexts(names []string) []string {
	out := make([]string, len(names))
	for k, n := range names {
		out[k] = columnText(n)
	}
	return out
}

// listedInIndex returns the columns that the index open at text's end
// lists already, by name or as strings (gss[income, "my col", → income
// and my col); nil when no index is open.
func listedInIndex(text string) []string { return listedAfter(text, '[', ']') }

// listedInFormula returns the columns that the regress formula open at
// text's end names already (m.regress(income ~ degree + → income and
// degree): a column on both sides, or twice on one, is an error.
func listedInFormula(text string) []string { return listedAfter(text, '(', ')') }

// listedAfter returns the names and strings after the bracket open (closed
// by close) that is open at text's end; nil when none is.
func listedAfter(text string, open, close byte) []string {
	before, ok := beforeOpen(text, open, close)
	if !ok {
		return nil
	}
	inside := text[len(before)+1:]
	var out []string
	for i := 0; i < len(inside); i++ {
		switch c := inside[i]; {
		case c == '"':
			lit := leadingString(inside[i:])
			if lit == "" {
				return out
			}
			if v, err := strconv.Unquote(lit); err == nil {
				out = append(out, v)
			}
			i += len(lit) - 1
		case isIdentByte(c):
			j := i
			for j < len(inside) && isIdentByte(inside[j]) {
				j++
			}
			if c < '0' || c > '9' { // a number is a position, not a name
				out = append(out, inside[i:j])
			}
			i = j - 1
		}
	}
	return out
}

// unlisted returns the names that listed does not hold, in order.
func unlisted(names, listed []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(listed, n) {
			out = append(out, n)
		}
	}
	return out
}

// escapedPrefixed returns the names that complete prefix, the escaped text
// of a string being typed, escaped as the string needs them, sorted.
func escapedPrefixed(names []string, prefix string) []string {
	var out []string
	for _, name := range names {
		q := strconv.Quote(name)
		if escaped := q[1 : len(q)-1]; strings.HasPrefix(escaped, prefix) {
			out = append(out, escaped)
		}
	}
	sort.Strings(out)
	return out
}

// loadSite is a place in an open load call where completion offers what
// the file holds: a column name (in drop = [...], after drop =, or at a
// key of order = {...}), or a label of the columns keys name (in the list
// of labels of order = {KEY: [...]}).
type loadSite struct {
	path string
	sep  rune
	// labels is true at a list of labels; keys are its key's columns as
	// written (a name, or the names of a key list [q1, q2]), "*" for
	// every column, and written the labels the list has already.
	labels  bool
	keys    []string
	written []string
}

// loadSiteAt returns the load site that text ends at (see loadSite), or
// false: elsewhere, or when the call names no file.
func loadSiteAt(text string) (loadSite, bool) {
	start := dsl.StatementStart(text)
	type frame struct {
		open byte
		at   int
	}
	var stack []frame
	inString := false
	for i := start; i < len(text); i++ {
		c := text[i]
		switch {
		case inString && c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '#':
			return loadSite{}, false
		case c == '(' || c == '[' || c == '{':
			stack = append(stack, frame{c, i})
		case c == ')' || c == ']' || c == '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if inString {
		return loadSite{}, false
	}
	call := -1
	for k := len(stack) - 1; k >= 0; k-- {
		if stack[k].open == '(' {
			if lastIdent(strings.TrimRight(text[:stack[k].at], " \t")) == "load" {
				call = k
			}
			break
		}
	}
	if call < 0 {
		return loadSite{}, false
	}
	// settingBefore is the name of the setting whose value opens at i.
	settingBefore := func(i int) string {
		t, ok := strings.CutSuffix(strings.TrimRight(text[:i], " \t\r\n"), "=")
		if !ok {
			return ""
		}
		return lastIdent(strings.TrimRight(t, " \t\r\n"))
	}
	// keyAt returns the key of the map opened at i whose value runs to
	// end, and whether end is at a key: no ':' at the map's own depth
	// since its last ','.
	keyAt := func(i, end int) (key string, atKey bool) {
		depth, from, colon := 0, i+1, -1
		inString := false
		for j := i + 1; j < end; j++ {
			c := text[j]
			switch {
			case inString && c == '\\':
				j++
			case inString:
				inString = c != '"'
			case c == '"':
				inString = true
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth--
			case depth == 0 && c == ',':
				from, colon = j+1, -1
			case depth == 0 && c == ':':
				colon = j
			}
		}
		if colon < 0 {
			return "", true
		}
		return strings.TrimSpace(text[from:colon]), false
	}
	var site loadSite
	inner := stack[call+1:]
	ok := false
	switch {
	case len(inner) == 0:
		ok = settingBefore(len(text)) == "drop"
	case len(inner) == 1 && inner[0].open == '[':
		ok = settingBefore(inner[0].at) == "drop"
	case len(inner) == 1 && inner[0].open == '{':
		_, atKey := keyAt(inner[0].at, len(text))
		ok = settingBefore(inner[0].at) == "order" && atKey
	case len(inner) == 2 && inner[0].open == '{' && inner[1].open == '[' && settingBefore(inner[0].at) == "order":
		key, atKey := keyAt(inner[0].at, inner[1].at)
		if atKey {
			ok = true // a key list, order = {[q1, q2]: ...}
			break
		}
		site.labels, site.keys = true, keyColumns(key)
		site.written = stringLiterals(text[inner[1].at+1:])
		ok = site.keys != nil
	}
	if !ok {
		return loadSite{}, false
	}
	args := text[stack[call].at+1:]
	path, err := strconv.Unquote(leadingString(strings.TrimLeft(args, " \t\r\n")))
	if err != nil || path == "" {
		return loadSite{}, false
	}
	site.path, site.sep = path, ','
	if m := sepSetting.FindStringSubmatch(args); m != nil {
		if v, err := strconv.Unquote(m[1]); err == nil && len([]rune(v)) == 1 {
			site.sep = []rune(v)[0]
		}
	}
	return site, true
}

// keyColumns returns the columns a key of order = {...} names: a name or
// a string ("q 1"), the names of a key list ([q1, "q 2"]), or "*"; nil
// for anything else.
func keyColumns(key string) []string {
	one := func(k string) string {
		k = strings.TrimSpace(k)
		if k == "*" || dsl.IsName(k) {
			return k
		}
		if v, err := strconv.Unquote(k); err == nil && strings.HasPrefix(k, `"`) {
			return v
		}
		return ""
	}
	if list, ok := strings.CutPrefix(key, "["); ok {
		list, ok = strings.CutSuffix(list, "]")
		if !ok {
			return nil
		}
		var out []string
		for _, k := range strings.Split(list, ",") {
			if c := one(k); c != "" && c != "*" {
				out = append(out, c)
			}
		}
		return out
	}
	if c := one(key); c != "" {
		return []string{c}
	}
	return nil
}

// stringLiterals returns the values of the complete string literals in
// text, in order.
func stringLiterals(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '"' {
			continue
		}
		lit := leadingString(text[i:])
		if lit == "" {
			break
		}
		if v, err := strconv.Unquote(lit); err == nil {
			out = append(out, v)
		}
		i += len(lit) - 1
	}
	return out
}

// openLoadFile opens the file of a load site, or returns nil: a file that
// is not regular is not opened, since opening a pipe, or reading a device,
// would block the editor.
func (s *Session) openLoadFile(site loadSite) *os.File {
	if info, err := os.Stat(s.path(site.path)); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(s.path(site.path))
	if err != nil {
		return nil
	}
	return f
}

// loadColumnsAt returns the column names of the file that the load call
// open at the end of text reads, from its header row, when text ends where
// a column name goes (loadSite); nil elsewhere, or when the file cannot be
// read. The file is the call's first argument, read with the call's sep.
func (s *Session) loadColumnsAt(text string) []string {
	site, ok := loadSiteAt(text)
	if !ok || site.labels {
		return nil
	}
	f := s.openLoadFile(site)
	if f == nil {
		return nil
	}
	defer f.Close()
	names, err := csvHeader(f, site.sep)
	if err != nil {
		return nil
	}
	return names
}

// loadLabelsAt returns the labels that may go where text ends, in the list
// of labels of a load call's order = {KEY: [...]}: the distinct cells of
// the key's columns (of every column for *), trimmed as load trims them,
// without empty and NA cells and those the list has already, sorted. Only
// the first maxLabelRows rows are read, and no more than maxLabels labels
// kept, so that completion stays quick on a large file.
func (s *Session) loadLabelsAt(text string) []string {
	site, ok := loadSiteAt(text)
	if !ok || !site.labels {
		return nil
	}
	f := s.openLoadFile(site)
	if f == nil {
		return nil
	}
	defer f.Close()
	cr, _, err := csvReader(f, site.sep)
	if err != nil {
		return nil
	}
	header, err := cr.Read()
	if err != nil {
		return nil
	}
	var cols []int
	for j, h := range header {
		if h = strings.TrimSpace(h); h != "" && (slices.Contains(site.keys, "*") || slices.Contains(site.keys, h)) {
			cols = append(cols, j)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	seen := map[string]bool{"": true, "NA": true}
	for _, w := range site.written {
		seen[strings.TrimSpace(w)] = true
	}
	var out []string
	for row := 0; row < maxLabelRows && len(out) < maxLabels; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			continue // load reports the row; completion offers the others
		}
		for _, j := range cols {
			if j >= len(rec) {
				continue
			}
			if cell := strings.TrimSpace(rec[j]); !seen[cell] {
				seen[cell] = true
				out = append(out, cell)
			}
		}
	}
	sort.Strings(out)
	return out
}

// maxLabelRows and maxLabels bound the work of loadLabelsAt.
const (
	maxLabelRows = 100_000
	maxLabels    = 1000
)

// sepSetting finds a load call's sep = "...".
var sepSetting = regexp.MustCompile(`\bsep\s*=\s*("(?:[^"\\]|\\.)*")`)

// leadingString is the string literal (quotes included) that text starts
// with, or "".
func leadingString(text string) string {
	if !strings.HasPrefix(text, `"`) {
		return ""
	}
	for i := 1; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '"':
			return text[:i+1]
		}
	}
	return ""
}

// openString returns the offset just after the quote of the string literal
// still open at the end of text, or -1: the line is read from its start,
// with the language's escapes, and a comment ends the search.
func openString(text string) int {
	open, _ := lineEnd(text)
	return open
}

// inComment reports whether the end of text lies in a comment: a # on its
// last line outside a string.
func inComment(text string) bool {
	_, comment := lineEnd(text)
	return comment
}

// lineEnd reads the last line of text from its start, with the language's
// escapes, and returns the offset just after the quote of a string still
// open at its end (or -1), and whether a comment began.
func lineEnd(text string) (open int, comment bool) {
	line := strings.LastIndexByte(text, '\n') + 1
	open = -1
	for i := line; i < len(text); i++ {
		switch c := text[i]; {
		case open >= 0 && c == '\\':
			i++ // the escaped byte
		case open >= 0 && c == '"':
			open = -1
		case open < 0 && c == '"':
			open = i + 1
		case open < 0 && c == '#':
			return -1, true
		}
	}
	return open, false
}

// Path completion reads at most maxPathEntries entries of a directory and
// offers at most maxPathCompletions of them.
const (
	maxPathEntries     = 10000
	maxPathCompletions = 500
)

// completePath returns the file paths that complete prefix, the escaped
// text of a string being typed after before, relative to the session's
// directory, escaped as the string needs them: directories (with a trailing
// slash) and the files the statement takes — data files (.csv, .tsv, .txt)
// in load(...), fit files (.fit) after file =, the tables and figures
// summary and plot write (.csv, .tex, .md; .pdf, .svg, .png) after their
// to, any file after another to and draws = (but for the files these
// would refuse to write over: a data file loaded, a fit file). Other strings (a separator, a label, a message) are not paths:
// they get nothing. Hidden entries are offered only to a prefix that starts
// with a dot.
func (s *Session) completePath(before, prefix string) []string {
	var exts []string
	b := strings.TrimRight(before, " \t")
	// writes: the statement writes the file, which then may not be one
	// that it would refuse to write over (overwritable).
	writes := true
	switch {
	case strings.HasSuffix(b, "load("):
		exts, writes = []string{".csv", ".tsv", ".txt"}, false
	case strings.HasSuffix(b, "=") && lastIdent(strings.TrimRight(b[:len(b)-1], " \t")) == "file":
		exts, writes = []string{".fit"}, false
	case lastIdent(b) == "to":
		// The files summary and plot write, by their formats; any file
		// after export's and impute's.
		switch keyword, _, _ := strings.Cut(strings.TrimSpace(b[dsl.StatementStart(b):]), " "); keyword {
		case "summary":
			exts = compiler.SummaryExtensions()
		case "plot":
			exts = compiler.PlotExtensions()
		}
	case strings.HasSuffix(b, "=") && lastIdent(strings.TrimRight(b[:len(b)-1], " \t")) == "draws":
	default:
		return nil
	}
	path, err := strconv.Unquote(`"` + prefix + `"`)
	if err != nil {
		return nil // an escape not finished yet
	}
	dir, base := "", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, base = path[:i+1], path[i+1:]
	}
	listed := dir
	if listed == "" {
		listed = "."
	}
	f, err := os.Open(s.path(listed))
	if err != nil {
		return nil
	}
	defer f.Close()
	entries, _ := f.ReadDir(maxPathEntries)
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if info, err := os.Stat(s.path(listed + "/" + name)); err == nil {
				isDir = info.IsDir()
			}
		}
		switch {
		case isDir:
			out = append(out, dir+name+"/")
		case writes && s.overwritable(dir+name) != nil:
			// the data file loaded, a fit file: the statement would
			// refuse it.
		case exts == nil || slices.Contains(exts, strings.ToLower(filepath.Ext(name))):
			out = append(out, dir+name)
		}
	}
	sort.Strings(out)
	out = out[:min(len(out), maxPathCompletions)]
	for i, p := range out {
		q := strconv.Quote(p)
		out[i] = q[1 : len(q)-1]
	}
	return out
}

// differenceOperand matches the left side of a difference at the end of
// a text: a model, a member, and an index or a member's arguments
// (a.C[x, y], a.regress(y ~ x)).
var differenceOperand = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)(?:\s*\.\s*([A-Za-z_][A-Za-z0-9_]*))?\s*(?:\[[^\[\]]*\]|\([^()]*\))?\s*$`)

// differenceLeft returns, when text ends with the minus of a difference
// of fitted quantities (summary a.C - , plot hist a.C[x, y] - , a.C - ,
// a line break after the minus included), what its right side may be: the
// models of b, and each model's member of the left side's name when the
// statement takes it in a difference (b.C after a.C or a.C[x, y], and
// likewise partial and, but in plot heatmap and graph, communality; not
// regress, whose formula the right side's need not be, nor Lambda, which
// has no difference). It returns nil elsewhere: after a minus whose left side is no
// model's, as in print 1 - , or in a statement that takes no difference.
func differenceLeft(b *bindingsView, text string) []string {
	t, ok := strings.CutSuffix(strings.TrimRight(text, " \t\r\n"), "-")
	if !ok {
		return nil
	}
	words := strings.Fields(statementText(t))
	if len(words) == 0 {
		return nil
	}
	switch kw := words[0]; {
	case kw == "summary" || kw == "plot" || kw == "print":
	case slices.Contains(compiler.Keywords(), kw):
		return nil
	}
	m := differenceOperand.FindStringSubmatch(t)
	if m == nil {
		return nil
	}
	if _, ok := b.models[m[1]]; !ok {
		return nil
	}
	stmt := memberStatement(t[:len(t)-len(m[0])])
	var out []string
	for _, name := range b.names {
		model, ok := b.models[name]
		if !ok {
			continue
		}
		out = append(out, name)
		if part := m[2]; part != "regress" && slices.Contains(compiler.DifferenceMembers(stmt), part) && slices.Contains(modelMembers(model), part) {
			out = append(out, name+"."+part)
		}
	}
	return out
}

// settingValues returns the words the setting whose NAME = text ends in
// takes (compiler.SettingValues), or nil.
func settingValues(text string) []string {
	t := strings.TrimRight(text, " \t")
	var listed []string
	if i := strings.LastIndexByte(t, '['); i >= 0 && !strings.Contains(t[i:], "]") {
		// summary m.C, columns = [mean, : a list of the setting's words,
		// less those it lists already.
		for _, w := range strings.Split(t[i+1:], ",") {
			listed = append(listed, strings.TrimSpace(w))
		}
		t = strings.TrimRight(t[:i], " \t")
		if name, ok := strings.CutSuffix(t, "="); !ok || lastIdent(strings.TrimRight(name, " \t")) != "columns" {
			return nil
		}
	}
	t, ok := strings.CutSuffix(t, "=")
	if !ok {
		return nil
	}
	name := lastIdent(strings.TrimRight(t, " \t"))
	if name == "order" && openParenOwner(t) != "" {
		return nil // load("x.csv", order = {...}) takes a map
	}
	values := compiler.SettingValues(name)
	if name == "columns" {
		values = columnsTaken(statementText(text))
	}
	var out []string
	for _, w := range values {
		if !slices.Contains(listed, w) {
			out = append(out, w)
		}
	}
	return out
}

// matrixLayout matches a statement's layout = matrix setting, and
// loadingsSummary a summary of a model's Lambda.
var (
	matrixLayout    = regexp.MustCompile(`,\s*layout\s*=\s*matrix\b`)
	loadingsSummary = regexp.MustCompile(`^\s*summary\s+[A-Za-z_][A-Za-z0-9_]*\s*\.\s*Lambda\b`)
)

// columnsTaken returns the statistics columns = takes in stmt, a
// statement's text so far: after layout = matrix those of a matrix
// (compiler.MatrixColumns, or for the loadings
// compiler.LoadingsMatrixColumns, communality and uniqueness among them),
// which the check accepts there, else those of a long table.
func columnsTaken(stmt string) []string {
	switch {
	case !matrixLayout.MatchString(stmt):
		return compiler.SettingValues("columns")
	case loadingsSummary.MatchString(stmt):
		return compiler.LoadingsMatrixColumns()
	}
	return compiler.MatrixColumns()
}

// heatmapOrderAt reports whether text ends in plot heatmap's order =,
// which takes the name of a model or simulation besides its words.
func heatmapOrderAt(text string) bool {
	t, ok := strings.CutSuffix(strings.TrimRight(text, " \t"), "=")
	if !ok || lastIdent(strings.TrimRight(t, " \t")) != "order" {
		return false
	}
	words := strings.Fields(statementText(text))
	return len(words) >= 2 && words[0] == "plot" && words[1] == "heatmap"
}

// targetOf returns the statement whose target comes where text ends, as
// in `fit ` or `plot trace `, or "" elsewhere: the statement's keyword
// ("plot" after a plot kind; "explain" after explain and explain fit).
func targetOf(text string) string {
	words := strings.Fields(statementText(text))
	switch {
	case len(words) == 1:
		switch words[0] {
		case "fit", "extend", "explain", "summary", "impute", "predict", "export", "check", "compare", "show", "help":
			return words[0]
		}
	case len(words) == 2 && words[0] == "plot" && slices.Contains(compiler.PlotKinds(), words[1]):
		return "plot"
	case len(words) == 2 && words[0] == "explain" && words[1] == "fit":
		return "fit"
	}
	return ""
}

// targets returns what statement stmt (targetOf) may take as its target:
// the models for those that take a model, every binding for show (also
// "fit" after explain, which explains a fit's settings), the documented
// words for help.
func (s *Session) targets(b *bindingsView, stmt string) []string {
	switch stmt {
	case "show", "summary", "export": // summary gss describes a data set, export gss writes it
		return b.names
	case "help":
		return compiler.HelpTopics()
	}
	var out []string
	for _, name := range b.names {
		if _, ok := b.models[name]; ok {
			out = append(out, name)
		}
	}
	if stmt == "explain" {
		out = append(out, "fit")
	}
	if stmt == "plot" {
		out = append(out, s.simulatedNames(b)...) // plot heatmap sim
	}
	return out
}

// simulatedNames returns the data sets that carry a simulation's truth,
// which plot rmse compares fits with.
func (s *Session) simulatedNames(b *bindingsView) []string {
	var out []string
	for _, name := range b.names {
		if d, ok := b.data[name]; ok && d.Truth != nil {
			out = append(out, name)
		}
	}
	return out
}

// settingNames returns the NAME = VALUE names that may come where text
// ends, after a comma or an opening parenthesis: the parameters of the call
// whose parenthesis is open (load, simulate, the priors, hmc(T = ...)), or,
// outside any call, the settings of the statement (fit m, iter = ...). It
// returns nil elsewhere, where the usual completions apply.
func settingNames(text string) []string {
	t := strings.TrimRight(text, " \t\r\n") // a line may end with the comma
	comma, paren := strings.HasSuffix(t, ","), strings.HasSuffix(t, "(")
	if !comma && !paren {
		return nil
	}
	args := compiler.Arguments()
	if call := openParenOwner(t); call != "" {
		return args[call]
	}
	if paren {
		return nil
	}
	words := strings.Fields(statementText(t))
	if len(words) == 0 {
		return nil
	}
	kw := words[0]
	if kw == "explain" && len(words) > 1 && words[1] == "fit" {
		kw = "fit"
	}
	if kw == "plot" && len(words) > 1 {
		kw = "plot " + words[1] // plot graph m.partial, prob = ...
	}
	if kw == "summary" && !writesTeX.MatchString(statementText(t)) {
		// width sets a .tex file's text width, which the check refuses
		// elsewhere.
		return slices.DeleteFunc(slices.Clone(args[kw]), func(name string) bool { return name == "width" })
	}
	return args[kw]
}

// writesTeX matches a statement that writes a .tex file: to "PATH.tex".
var writesTeX = regexp.MustCompile(`\bto\s+"[^"]*\.(?i:tex)"`)

// statementText is the statement that text ends in: what follows the
// last newline or semicolon that ends one (dsl.StatementStart: a newline
// inside brackets or after a trailing comma does not).
func statementText(text string) string {
	return text[dsl.StatementStart(text):]
}

// openParenOwner returns the name of the call whose parenthesis is open at
// the end of text (as in `load("x.csv", ` or `fit m with hmc(`), or "".
func openParenOwner(text string) string {
	before, ok := beforeOpen(text, '(', ')')
	if !ok {
		return ""
	}
	return lastIdent(strings.TrimRight(before, " "))
}

// beforeOpen returns the text before the bracket open (closed by close)
// that is still open at the end of text, looking back no further than the
// current statement (statementText) or a '{' or '}'; ok is false if there
// is none.
func beforeOpen(text string, open, close byte) (before string, ok bool) {
	depth, start := 0, dsl.StatementStart(text)
	for i := len(text) - 1; i >= start; i-- {
		switch text[i] {
		case close:
			depth++
		case open:
			if depth > 0 {
				depth--
				continue
			}
			return text[:i], true
		case ';', '{', '}':
			return "", false
		}
	}
	return "", false
}

// lastIdent is the identifier that ends text.
func lastIdent(text string) string {
	i := len(text)
	for i > 0 && isIdentByte(text[i-1]) {
		i--
	}
	return text[i:]
}

// lastWord is the last whitespace-separated word of text. It looks only
// at the end of text, so completion costs no more in a long cell.
func lastWord(text string) string {
	text = strings.TrimRightFunc(text, unicode.IsSpace)
	return text[strings.LastIndexFunc(text, unicode.IsSpace)+1:]
}

// regressOwner returns the model whose regress( is open at the end of
// text (as in `summary m.regress(INC ~ DEG + `), or "".
func regressOwner(text string) string {
	before, ok := beforeOpen(text, '(', ')')
	if !ok {
		return ""
	}
	before = strings.TrimRight(before, " \t")
	rest, ok := strings.CutSuffix(before, "regress")
	if !ok || lastIdent(rest) != "" {
		return ""
	}
	rest = strings.TrimRight(rest, " \t")
	if !strings.HasSuffix(rest, ".") {
		return ""
	}
	return lastIdent(strings.TrimRight(rest[:len(rest)-1], " \t"))
}

// openBracketOwner returns the binding whose index bracket is open at the
// end of text (as in `m.C[inc, ` or `gss[`), or "".
func openBracketOwner(text string) string {
	before, ok := beforeOpen(text, '[', ']')
	if !ok {
		return ""
	}
	owner := strings.TrimRight(before, " ")
	ident := lastIdent(owner)
	rest := owner[:len(owner)-len(ident)]
	if strings.HasSuffix(rest, ".") { // m.C[ → m
		return lastIdent(rest[:len(rest)-1])
	}
	return ident
}

// loadingsFactorIndexAt reports whether text ends in the second place of
// an index of a model's Lambda (f.Lambda[income, ), where a factor's
// number goes, not a column's name.
func loadingsFactorIndexAt(text string) bool {
	before, ok := beforeOpen(text, '[', ']')
	if !ok {
		return false
	}
	owner := strings.TrimRight(before, " ")
	rest, isLambda := strings.CutSuffix(owner, "Lambda")
	if !isLambda || !strings.HasSuffix(strings.TrimRight(rest, " "), ".") {
		return false
	}
	inside := text[len(before)+1:]
	for i := 0; i < len(inside); i++ {
		switch inside[i] {
		case '"':
			lit := leadingString(inside[i:])
			if lit == "" {
				return false // a string still open: the first place
			}
			i += len(lit) - 1
		case ',':
			return true
		}
	}
	return false
}

// members lists what may follow `NAME.` where text (which ends with
// NAME) ends, for a model binding: the members of the model that the
// statement takes there (compiler.TargetMembers, and on the right of a
// difference compiler.DifferenceMembers, of the left side's member): C
// and partial in plot heatmap and plot graph (in heatmap's order = too),
// Z alone in plot latent, everything but Z in summary, export, print, a
// line that is an expression and the other plots; nothing in a statement
// that takes a model's name alone (fit, impute, check, plot rmse, ...).
func (s *Session) members(b *bindingsView, text string) []string {
	m, ok := b.models[lastIdent(text)]
	if !ok {
		return nil
	}
	before := strings.TrimRight(text[:len(text)-len(lastIdent(text))], " \t\r\n")
	stmt := memberStatement(before)
	takes := compiler.TargetMembers(stmt)
	if left, ok := strings.CutSuffix(before, "-"); ok {
		// a.partial - b.: the left side's member, if a difference takes it.
		takes = compiler.DifferenceMembers(stmt)
		if o := differenceOperand.FindStringSubmatch(left); o != nil && o[2] != "" {
			takes = slices.DeleteFunc(slices.Clone(takes), func(member string) bool { return member != o[2] })
		}
	}
	var out []string
	for _, member := range modelMembers(m) {
		if slices.Contains(takes, member) {
			out = append(out, member)
		}
	}
	return out
}

// memberStatement names, as compiler.TargetMembers does, the statement
// whose target text ends in: "plot KIND", "plot heatmap" in heatmap's
// order = too, "print" for a line that is an expression, the keyword
// otherwise; "" after another setting's = or after vs or to, which take
// no member.
func memberStatement(text string) string {
	if heatmapOrderAt(text) {
		return "plot heatmap"
	}
	t := strings.TrimRight(text, " \t\r\n")
	if strings.HasSuffix(t, "=") && !strings.HasSuffix(t, "==") || lastWord(t) == "vs" || lastWord(t) == "to" {
		return ""
	}
	words := strings.Fields(statementText(text))
	switch {
	case len(words) == 0:
		return "print" // the line is the expression
	case words[0] == "plot" && len(words) > 1:
		return "plot " + words[1]
	case !slices.Contains(compiler.Keywords(), words[0]):
		return "print" // a.C - b.C, a line that is an expression
	}
	return words[0]
}

// modelMembers lists the members of model m.
func modelMembers(m *Model) []string {
	if _, factor := m.Decl.Model.(inference.FactorModel); factor {
		return []string{"C", "Lambda", "Z", "partial", "communality", "regress"}
	}
	return []string{"C", "Z", "partial", "regress"}
}

// columnsOf lists the column names of a data set or a model.
func (s *Session) columnsOf(b *bindingsView, name string) []string {
	if d, ok := b.data[name]; ok {
		return d.Names
	}
	if m, ok := b.models[name]; ok {
		return m.Names()
	}
	return nil
}

// Inspect returns documentation for the word at byte offset cursor: a
// description of a binding, or the reference text of a statement,
// distribution, method or plot kind.
func (s *Session) Inspect(code string, cursor, detail int) (MimeBundle, bool) {
	start, end := wordAt(code, cursor)
	if start == end && cursor > 0 {
		start, end = wordAt(code, cursor-1)
	}
	word := code[start:end]
	if word == "" {
		return nil, false
	}
	b := s.bindings()
	var text string
	if d, ok := b.data[word]; ok {
		text = describeData(d)
		if detail > 0 {
			text += "\n\n" + dataSummaryTable(d).Text()
		}
	} else if m, ok := b.models[word]; ok {
		text = describeModel(word, m, b.data)
	} else if doc, ok := compiler.Doc(word); ok {
		text = doc
	} else {
		return nil, false
	}
	return MimeBundle{"text/plain": text}, true
}

// IsComplete says whether a cell can run as typed: "incomplete" while a
// brace, parenthesis, bracket or string is open or its last token is a
// comma, + - * /, a where condition's connective or predict's given (the
// indent is then two spaces per open brace, not counting those in comments
// and strings, and two more for a statement that goes on after its last
// token, a comment after it or not), "invalid" for a syntax error, else
// "complete".
func (s *Session) IsComplete(code string) (status, indent string) {
	status, braces := dsl.Completeness(code)
	if status == "incomplete" {
		if dsl.GoesOn(code) {
			braces++ // fit m, iter = 20,⏎ and summary a.C -⏎ go on
		}
		indent = strings.Repeat("  ", braces)
	}
	return status, indent
}
