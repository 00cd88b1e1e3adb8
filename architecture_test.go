package main

import (
	"errors"
	"go/build"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestArchitecture checks that the packages of this module import each
// other exactly as docs/architecture.md says, in its table (the "imports"
// column) and in its picture, so that the document cannot drift from the
// code. A package added, or an import added or removed, needs its row and
// its arrow there.
func TestArchitecture(t *testing.T) {
	code := codeGraph(t)
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Packages and their imports\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no section "## Packages and their imports"`)
	}
	compareGraphs(t, "the table of docs/architecture.md", tableGraph(t, section), code, false)
	compareGraphs(t, "the picture in docs/architecture.md", pictureGraph(t, section), code, true)
}

// graph maps a package (its directory relative to the module root, "." for
// the command) to the packages of the module it imports, sorted.
type graph map[string][]string

// codeGraph reads the imports of every package of the module from its
// non-test Go files. A directory with only test files (notebooks) is a
// package that imports nothing.
func codeGraph(t *testing.T) graph {
	t.Helper()
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	module := string(m[1])
	g := graph{}
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if base := d.Name(); path != "." && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		var noGo *build.NoGoError
		switch {
		case errors.As(err, &noGo):
			if tests, _ := filepath.Glob(filepath.Join(path, "*_test.go")); len(tests) > 0 {
				g[filepath.ToSlash(path)] = nil
			}
			return nil
		case err != nil:
			return err
		}
		var ours []string
		for _, imp := range pkg.Imports {
			if rel, found := strings.CutPrefix(imp, module+"/"); found {
				ours = append(ours, rel)
			}
		}
		slices.Sort(ours)
		g[filepath.ToSlash(path)] = ours
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// tableGraph reads the table: rows whose first cell names a package
// (`dsl/`, or `main` for the command) and whose second lists its imports in
// backquotes (— for none).
func tableGraph(t *testing.T, section string) graph {
	t.Helper()
	g := graph{}
	quoted := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := regexp.MustCompile(`[^\\]\|`).Split(line, -1)
		if len(cells) < 3 {
			t.Errorf("table row %q has too few cells", line)
			continue
		}
		first := quoted.FindStringSubmatch(cells[0])
		pkg := packageDir(strings.TrimSuffix(first[1], "/"))
		if _, dup := g[pkg]; dup {
			t.Errorf("the table has two rows for %s", pkg)
		}
		var imports []string
		for _, q := range quoted.FindAllStringSubmatch(cells[1], -1) {
			imports = append(imports, packageDir(q[1]))
		}
		slices.Sort(imports)
		g[pkg] = imports
	}
	return g
}

// pictureGraph reads the edges of the picture, the first code block of the
// section: "A ─► B, C" is an edge from A to B and to C; a branch ├─► or
// └─► that starts a line belongs to the package whose name, or whose ┬,
// stands above it in the same column. Words in parentheses are comments;
// a package is named by its directory (kernel/internal/x), the command by
// copulang.
func pictureGraph(t *testing.T, section string) graph {
	t.Helper()
	_, rest, _ := strings.Cut(section, "```\n")
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("the section has no picture (a ``` code block)")
	}
	lines := strings.Split(strings.TrimRight(block, "\n"), "\n")
	grid := make([][]rune, len(lines))
	for i, l := range lines {
		grid[i] = []rune(regexp.MustCompile(`\([^)]*\)`).ReplaceAllStringFunc(l, func(s string) string {
			return strings.Repeat(" ", len([]rune(s))) // keep the columns of what follows
		}))
	}
	g := graph{}
	isName := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '/' }
	wordAt := func(row []rune, col int) string { // the name covering col
		start, end := col, col
		for start > 0 && isName(row[start-1]) {
			start--
		}
		for end < len(row) && isName(row[end]) {
			end++
		}
		return string(row[start:end])
	}
	lastWordBefore := func(row []rune, col int) string {
		for c := col - 1; c >= 0; c-- {
			if isName(row[c]) {
				return wordAt(row, c)
			}
		}
		return ""
	}
	for i, row := range grid {
		for col := 0; col+1 < len(row); col++ {
			if row[col] != '─' || row[col+1] != '►' {
				continue
			}
			// The source: the name before the arrow on this line, or
			// the owner of the branch this line starts with.
			start := col
			for start > 0 && strings.ContainsRune("─┬├└", row[start-1]) {
				start--
			}
			src := lastWordBefore(row, start)
			if strings.TrimSpace(strings.Map(func(r rune) rune {
				if strings.ContainsRune("│├└─┬", r) {
					return ' '
				}
				return r
			}, string(row[:start+1]))) == "" {
				src = ""
				for up := i - 1; up >= 0 && src == ""; up-- {
					above := grid[up]
					if start >= len(above) || strings.ContainsRune("│├└ ", above[start]) {
						continue
					}
					if above[start] == '┬' {
						src = lastWordBefore(above, start)
					} else if isName(above[start]) {
						src = wordAt(above, start)
					} else {
						break
					}
				}
			}
			if src == "" {
				t.Errorf("picture line %d: arrow at column %d has no source", i+1, col+1)
				continue
			}
			// The targets: names after the arrow up to the next arrow.
			after := string(row[col+2:])
			if k := strings.Index(after, "─"); k >= 0 {
				after = after[:k]
			}
			from := packageDir(src)
			for _, name := range strings.FieldsFunc(after, func(r rune) bool { return !isName(r) }) {
				g[from] = append(g[from], packageDir(name))
			}
		}
	}
	for p, imports := range g {
		slices.Sort(imports)
		g[p] = slices.Compact(imports)
	}
	return g
}

// packageDir maps a name in the document to a package directory: the
// command (copulang, main) is ".".
func packageDir(name string) string {
	if name == "main" || name == "copulang" {
		return "."
	}
	return name
}

// compareGraphs reports every difference between what the document says
// and what the code does. With arrowsOnly (the picture), a package that
// imports none of ours need not appear.
func compareGraphs(t *testing.T, where string, doc, code graph, arrowsOnly bool) {
	t.Helper()
	for _, p := range slices.Sorted(maps.Keys(code)) {
		d, listed := doc[p]
		if !listed && !(arrowsOnly && len(code[p]) == 0) {
			t.Errorf("%s does not list package %s (it imports %v)", where, p, code[p])
			continue
		}
		if !slices.Equal(d, code[p]) {
			t.Errorf("%s says %s imports %v; the code imports %v", where, p, d, code[p])
		}
	}
	for _, p := range slices.Sorted(maps.Keys(doc)) {
		if _, exists := code[p]; !exists {
			t.Errorf("%s lists %s, which is not a package of the module", where, p)
		}
	}
}
