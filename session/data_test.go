package session

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/copulang/copulang/compiler"
)

func TestLoadCSV(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name     string
		csv      string
		order    map[string][]string
		opts     CSVOptions
		names    []string
		cols     [][]float64
		warnings []string
	}{
		{
			name:  "semicolons, with the separator given",
			csv:   "a;b\n1;2.5\n3;-1\n2;0\n",
			opts:  CSVOptions{Sep: ';', NA: []string{"-1"}},
			names: []string{"a", "b"},
			cols:  [][]float64{{1, 3, 2}, {2.5, nan, 0}},
		},
		{
			name:  "tabs and missing-value markers",
			csv:   "a\tb c\n1\t.\n-99\t2\n 4\t3\n",
			opts:  CSVOptions{Sep: '\t', NA: []string{"-99", "."}},
			names: []string{"a", "b c"},
			cols:  [][]float64{{1, nan, 4}, {nan, 2, 3}},
		},
		{
			name: "one order for every text column, numeric columns by value",
			csv:  "q1,q2,age,sex\nagree,disagree,30,m\nneutral,agree,41,f\n,neutral,25,f\n",
			opts: CSVOptions{Order: map[string][]string{"sex": {"m", "f"}},
				OrderAll: []string{"disagree", "neutral", "agree"}},
			names: []string{"q1", "q2", "age", "sex"},
			cols:  [][]float64{{3, 2, nan}, {1, 3, 2}, {30, 41, 25}, {1, 2, 2}},
		},
		{
			// A numeric marker marks its value however the cell writes it:
			// load's warning of a code suggests na = ["-99"] from the value
			// for a file that writes -99.0, which matched no cell. Text
			// cells and other numbers are left alone.
			name:  "a numeric marker marks its value written otherwise",
			csv:   "a,b\n1,-99.0\n-9.9e1,x\n-99,-990\n2,+99\n",
			opts:  CSVOptions{NA: []string{"-99"}, Order: map[string][]string{"b": {"x", "-990", "+99"}}},
			names: []string{"a", "b"},
			cols:  [][]float64{{1, nan, nan, 2}, {nan, 1, 2, 3}},
		},
		{
			name:  "numeric with every missing spelling",
			csv:   "a,b\n1,2.5\n,NA\nNaN,-1\n3, 4\n",
			names: []string{"a", "b"},
			cols:  [][]float64{{1, nan, nan, 3}, {2.5, nan, -1, 4}},
		},
		{
			name:  "text column with an order",
			csv:   "sex,deg\nm,1\nf,2\n,3\n",
			order: map[string][]string{"sex": {"f", "m"}},
			names: []string{"sex", "deg"},
			cols:  [][]float64{{2, 1, nan}, {1, 2, 3}},
		},
		{
			name:     "constant and all-missing columns warn",
			csv:      "a,b,c\n1,5,\n2,5,NA\n",
			names:    []string{"a", "b", "c"},
			cols:     [][]float64{{1, 2}, {5, 5}, {nan, nan}},
			warnings: []string{"column b is constant", "column c is entirely missing"},
		},
		{
			name:     "warnings quote names that are not identifiers",
			csv:      "a,b c,\"d\re\"\n1,5,\n2,5,NA\n",
			names:    []string{"a", "b c", "d\re"},
			cols:     [][]float64{{1, 2}, {5, 5}, {nan, nan}},
			warnings: []string{`column "b c" is constant`, `column "d\re" is entirely missing`},
		},
		// A survey's code of a missing answer read as a number would be
		// taken as the lowest or highest answer, silently: load warns.
		{
			name:  "-99 as the only negative value warns",
			csv:   "income,age\n100.5,30\n-99,41\n250,-99\n-99,22\n",
			names: []string{"income", "age"},
			cols:  [][]float64{{100.5, -99, 250, -99}, {30, 41, -99, 22}},
			warnings: []string{`column income: -99 (2 cells) is its only negative value, which the model takes as the lowest answer; if it marks missing answers, add it to na, as na = ["-99"]`,
				`column age: -99 (1 cell) is its only negative value`},
		},
		{
			name:     "9 after a scale of 1 to 5 warns",
			csv:      "q\n1\n5\n9\n3\n9\n",
			names:    []string{"q"},
			cols:     [][]float64{{1, 5, 9, 3, 9}},
			warnings: []string{`column q: its largest value, 9 (2 cells), lies apart from the others (the next is 5), and the model takes it as the highest answer; if it marks missing answers, add it to na, as na = ["9"]`},
		},
		{
			name:     "999 after ages warns",
			csv:      "age\n18\n85\n999\n",
			names:    []string{"age"},
			cols:     [][]float64{{18, 85, 999}},
			warnings: []string{`column age: its largest value, 999 (1 cell)`},
		},
		{
			// Values that are no code, or that the column's other values
			// make plausible answers: no warning.
			name:  "values that look like codes among plausible answers do not warn",
			csv:   "a,b,c,d,e,f\n-5,87,98,-1,0.5,1\n-99,89,99,0,-99.5,9\n3,50,1,1,3,8\n",
			names: []string{"a", "b", "c", "d", "e", "f"},
			cols:  [][]float64{{-5, -99, 3}, {87, 89, 50}, {98, 99, 1}, {-1, 0, 1}, {0.5, -99.5, 3}, {1, 9, 8}},
		},
		{
			// Excel saves empty columns after the last as empty cells
			// with no name: they are left out, with a warning (load
			// refused the file: "column 3 has an empty name").
			name:     "empty columns with no name",
			csv:      "a,b,,\r\n1,2,,\r\n2,1, ,\r\n",
			names:    []string{"a", "b"},
			cols:     [][]float64{{1, 2}, {2, 1}},
			warnings: []string{"columns 3, 4 of the file have no name and no value (as a spreadsheet saves empty columns): left out"},
		},
		{
			name:     "an empty column with no name between two",
			csv:      "a,,b\n1,,2\n2,,1\n",
			names:    []string{"a", "b"},
			cols:     [][]float64{{1, 2}, {2, 1}},
			warnings: []string{"column 2 of the file has no name and no value"},
		},
		{
			name:  "byte order mark and quoted header",
			csv:   "\ufeff\"x\",y\n1,2\n3,1\n",
			names: []string{"x", "y"},
			cols:  [][]float64{{1, 3}, {2, 1}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			if c.order != nil {
				opts.Order = c.order
			}
			d, warns, err := LoadCSV(strings.NewReader(c.csv), opts)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(d.Names, ",") != strings.Join(c.names, ",") {
				t.Errorf("names %v, want %v", d.Names, c.names)
			}
			for j := range c.cols {
				for i := range c.cols[j] {
					got, want := d.Columns[j][i], c.cols[j][i]
					if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
						t.Errorf("cell (%d,%d) = %v, want %v", i, j, got, want)
					}
				}
			}
			if len(warns) != len(c.warnings) {
				t.Fatalf("warnings %q, want %d", warns, len(c.warnings))
			}
			for k, w := range c.warnings {
				if !strings.Contains(warns[k], w) {
					t.Errorf("warning %q does not say %q", warns[k], w)
				}
			}
		})
	}
}

func TestLoadCSVErrors(t *testing.T) {
	cases := []struct {
		name  string
		csv   string
		order map[string][]string
		want  string
	}{
		{"empty file", "", nil, "the file is empty"},
		{"header only", "a,b\n", nil, "the file has a header row but no rows of data"},
		{"header and blank lines", "a,b\n\n \n", nil, "the file has a header row but no rows of data"},
		{"a column name that is not an identifier", "a,b c\n1,x\n", nil, `line 2: column "b c": cannot read "x"`},
		{"a column name holding a CR", "a,\"b\rc\"\n1,x\n", nil, `line 2: column "b\rc": cannot read "x"`},
		{"ragged row", "a,b\n1,2\n3\n", nil, "line 3: the row has 1 cells but the header names 2 columns"},
		{"unparsable cell", "a,b\n1,x\n", nil, `line 2: column b: cannot read "x" as a number; a column of text needs an explicit order`},
		{"label outside the order", "s\nm\nq\n", map[string][]string{"s": {"m", "f"}}, `line 3: column s: value "q" is not in the column's order ["m", "f"]`},
		{"misspelt label", "s\nmale\nfemal\n", map[string][]string{"s": {"male", "female"}}, `(did you mean "female"?)`},
		// A number is one edit from every other digit: no "did you mean".
		{"number outside a numeric order", "d\n0\n3\n", map[string][]string{"d": {"0", "1", "2"}}, `line 3: column d: value "3" is not in the column's order ["0", "1", "2"]; add it to the order (the order lists every value of the column), or to na`},
		// A survey's code of a missing answer, which the order does
		// not list and no label resembles: na is the remedy.
		{"missing code outside the order", "s\nm\n-99\n", map[string][]string{"s": {"m", "f"}}, `line 3: column s: value "-99" is not in the column's order ["m", "f"]; if "-99" marks a missing cell, add it to na`},
		{"missing word outside the order", "s\nyes\nrefused\n", map[string][]string{"s": {"no", "yes"}}, `value "refused" is not in the column's order ["no", "yes"]; if "refused" marks a missing cell, add it to na`},
		// A text column without an order: the order to give, with the
		// column's name, or drop to leave it out.
		{"text column without an order", "a,sex\n1,m\n2,f\n", nil, `line 2: column sex: cannot read "m" as a number; a column of text needs an explicit order, e.g. order = {sex: ["low", "high"]}, or drop = [sex] to leave it out`},
		{"text column without an order, a name to quote", "a,b c\n1,m\n", nil, `order = {"b c": ["low", "high"]}, or drop = ["b c"] to leave it out`},
		{"identifier column", "id,a\n" + idRows(30), nil, `line 2: column id: cannot read "R001" as a number; a column of text needs an explicit order, e.g. order = {id: ["low", "high"]}, or drop = [id] to leave it out (its 30 distinct texts in 30 cells look like identifiers or free text, which drop leaves out)`},
		{"unknown column in order", "sex\nm\n", map[string][]string{"sx": {"m"}}, `order names column "sx", which the file does not have (did you mean sex?)`},
		{"duplicate header", "a,a\n1,2\n", nil, "line 1: column a: the name is used twice (columns 1 and 2)"},
		{"empty header name over a value", "a,\n1,2\n", nil, `line 2: column 2 has no name in the header row but holds "2"; name it there`},
		{"no named column", ",\n,\n", nil, "line 1: the header row names no column"},
		{"infinite value", "a\nInf\n", nil, `cannot read "Inf" as a number: it is infinite`},
		// Numbers that are not text get hints of their own, not the
		// order that text needs.
		{"decimal comma", "a,b\n1,\"1,5\"\n", nil, `line 2: column b: cannot read "1,5" as a number: it has a comma, and copulang reads numbers written with a decimal point`},
		{"negative decimal comma", "a\n\"-0,25\"\n", nil, `cannot read "-0,25" as a number: it has a comma`},
		{"text with a comma", "a\n\"x,5\"\n", nil, `cannot read "x,5" as a number; a column of text needs an explicit order`},
		{"beyond float64", "a\n1e400\n", nil, `cannot read "1e400" as a number: it is outside the range of numbers copulang reads`},
		{"beyond float64, negative", "a\n1\n-1e400\n", nil, `line 3: column a: cannot read "-1e400" as a number: it is outside the range`},
		{"bad quoting", "a\n\"1\n", nil, "line 2"},
		{"semicolon file read with commas", "income;degree;age\n1;2;30\n", nil,
			`line 1: the header is one column, "income;degree;age": the file looks separated by ";", not ","; load it with sep = ";"`},
		{"tab file read with commas", "income\tdegree\n1\t2\n", nil, `the file looks separated by tabs, not ","; load it with sep = "\t"`},
		{"UTF-16 little-endian", "\xff\xfea\x00,\x00b\x00\n\x001\x00,\x002\x00\n\x00", nil, "the file is UTF-16 text"},
		{"UTF-16 big-endian", "\xfe\xff\x00a\x00,\x00b\x00\n\x001\x00,\x002\x00\n", nil, "save it as CSV UTF-8"},
		// Lines of the file, counting blank lines and the lines of a
		// quoted cell, as an editor numbers them.
		{"after blank lines", "a,b\n1,2\n\n2,3\n\n3,zz\n", nil, `line 6: column b: "zz" is not a number`},
		{"after a cell of two lines", "a,b\n1,\"x\ny\"\n2,zz\n", map[string][]string{"b": {"x\ny", "z"}}, `line 4: column b: value "zz" is not`},
		{"ragged row after a blank line", "a,b\n1,2\n\n3\n", nil, "line 4: the row has 1 cells"},
		{"a cell of two lines on the line it starts", "a,b\n1,2\n3,\"q\nr\"\n", nil, `line 3: column b: cannot read "q\nr"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := LoadCSV(strings.NewReader(c.csv), CSVOptions{Order: c.order})
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

// TestLoadCSVReportsEveryUnreadColumn: the columns that cannot be read once
// the file is (text without an order, a stray text among numbers) are
// reported together, each with its line, and a text column's error lists
// its labels (a survey's missing codes among them) but for an identifier's
// many. Each used to be reported alone, so a survey of seven text columns
// took seven runs to load.
func TestLoadCSVReportsEveryUnreadColumn(t *testing.T) {
	csv := "id,smoker,q1,income\n" + "R1,yes,agree,12.5\n" + "R2,no,-99,refused\n" + "R3,no,disagree,30\n"
	for i := 4; i <= 30; i++ {
		csv += fmt.Sprintf("R%d,yes,agree,%d\n", i, i)
	}
	_, _, err := LoadCSV(strings.NewReader(csv), CSVOptions{})
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %v is not one per column", err)
	}
	want := []string{
		`line 2: column id: cannot read "R1" as a number; a column of text needs an explicit order, e.g. order = {id: ["low", "high"]}, or drop = [id] to leave it out (its 30 distinct texts in 30 cells look like identifiers or free text, which drop leaves out)`,
		`line 2: column smoker: cannot read "yes" as a number; a column of text needs an explicit order, e.g. order = {smoker: ["low", "high"]}, or drop = [smoker] to leave it out (its labels, sorted as text: "no", "yes")`,
		`line 2: column q1: cannot read "agree" as a number; a column of text needs an explicit order, e.g. order = {q1: ["low", "high"]}, or drop = [q1] to leave it out (its labels, sorted as text: "-99", "agree", "disagree")`,
		`line 3: column income: "refused" is not a number, but the column's other cells are, such as "12.5"; if it marks missing answers, add it to na, as na = ["refused"]`,
	}
	var got []string
	for _, e := range joined.Unwrap() {
		got = append(got, e.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// idRows is n rows of an identifier column R001, R002, ... and a number.
func idRows(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "R%03d,%d\n", i+1, i%3)
	}
	return b.String()
}

// TestLoadCSVDrop: drop leaves out an identifier and a free-text column,
// whose cells are not read (text without an order, and the commas and
// quotes of free text), in a file as a spreadsheet writes a survey: a byte
// order mark, CRLF line ends, quoted header names and cells. Without drop
// such a file could not be loaded at all: no order can list every
// identifier.
func TestLoadCSVDrop(t *testing.T) {
	nan := math.NaN()
	survey := "\ufeffid,smoker,\"income, household\",comment\r\n" +
		"R0001,yes,54091.04,\"ok, thanks\"\r\n" +
		"R0002,no,-99,\"\"\"great\"\", really\"\r\n" +
		"R0003,refused,19301.68,none\r\n"
	d, _, err := LoadCSV(strings.NewReader(survey), CSVOptions{
		Drop:  []string{"id", "comment"},
		NA:    []string{"-99", "refused"},
		Order: map[string][]string{"smoker": {"no", "yes"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"smoker", "income, household"}; !slices.Equal(d.Names, want) {
		t.Fatalf("names %q, want %q", d.Names, want)
	}
	want := [][]float64{{2, 1, nan}, {54091.04, nan, 19301.68}}
	for j := range want {
		for i := range want[j] {
			got := d.Columns[j][i]
			if !(got == want[j][i] || math.IsNaN(got) && math.IsNaN(want[j][i])) {
				t.Errorf("%s row %d = %v, want %v", d.Names[j], i+1, got, want[j][i])
			}
		}
	}
	if d.Labels[0] == nil || d.Labels[1] != nil {
		t.Errorf("labels %q: want smoker's alone", d.Labels)
	}

	errs := []struct {
		name string
		opts CSVOptions
		want string
	}{
		{"unknown column", CSVOptions{Drop: []string{"coment"}}, `drop names column "coment", which the file does not have (did you mean comment?)`},
		{"every column", CSVOptions{Drop: []string{"id", "smoker", "income, household", "comment"}}, "drop leaves out every column of the file"},
		{"dropped and ordered", CSVOptions{Drop: []string{"id", "smoker"}, Order: map[string][]string{"smoker": {"no", "yes"}}}, "column smoker: the column is both given an order and dropped"},
		// The columns kept are read as before: smoker still needs its order.
		{"a kept text column", CSVOptions{Drop: []string{"id", "comment"}, NA: []string{"-99"}}, `line 2: column smoker: cannot read "yes" as a number`},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := LoadCSV(strings.NewReader(survey), c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestLoadCSVLoneCR: a file whose lines end with a carriage return alone
// ("CSV (Macintosh)") reads as its lines, a line break inside a quoted cell
// included; CRLF files and a carriage return inside a quoted cell of an LF
// file stay as they were. Such a file used to read as one header row of
// names holding '\r' and no data.
func TestLoadCSVLoneCR(t *testing.T) {
	lh := []string{"lo", "hi"}
	cases := []struct {
		name  string
		csv   string
		opts  CSVOptions
		names []string
		cols  [][]float64
	}{
		{"lone CR", "a,b\r1,2\r2,1\r", CSVOptions{}, []string{"a", "b"}, [][]float64{{1, 2}, {2, 1}}},
		{"lone CR, no last line end", "a,b\r1,2\r2,1", CSVOptions{}, []string{"a", "b"}, [][]float64{{1, 2}, {2, 1}}},
		{"lone CR, a quoted line break", "a,b\r1,\"x\ry\"\r2,z\r", CSVOptions{Order: map[string][]string{"b": {"x\ny", "z"}}},
			[]string{"a", "b"}, [][]float64{{1, 2}, {1, 2}}},
		{"lone CR, quoted header", "\"a\rb\",c\r1,2\r3,4\r", CSVOptions{}, []string{"a\nb", "c"}, [][]float64{{1, 3}, {2, 4}}},
		{"CRLF", "a,b\r\n1,2\r\n2,1\r\n", CSVOptions{}, []string{"a", "b"}, [][]float64{{1, 2}, {2, 1}}},
		{"CRLF, a quoted CR", "a,b\r\n1,\"lo\rhi\"\r\n2,lo\r\n", CSVOptions{Order: map[string][]string{"b": {"lo", "lo\rhi"}}},
			[]string{"a", "b"}, [][]float64{{1, 2}, {2, 1}}},
		{"LF, a quoted CR", "a,b\n1,\"lo\rhi\"\n2,lo\n", CSVOptions{Order: map[string][]string{"b": {"lo", "lo\rhi"}}},
			[]string{"a", "b"}, [][]float64{{1, 2}, {2, 1}}},
		{"LF, a CR in a header name", "\"a\rb\",c\n1,2\n", CSVOptions{}, []string{"a\rb", "c"}, [][]float64{{1}, {2}}},
		{"lone CR, a header longer than a first look", strings.Repeat("x", 300) + ",b\rlo,1\rhi,2\r", CSVOptions{OrderAll: lh},
			[]string{strings.Repeat("x", 300), "b"}, [][]float64{{1, 2}, {1, 2}}},
	}
	for _, c := range cases {
		for _, oneByte := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/oneByte=%v", c.name, oneByte), func(t *testing.T) {
				var r io.Reader = strings.NewReader(c.csv)
				if oneByte { // a '\r' at the end of every read
					r = iotest.OneByteReader(r)
				}
				d, _, err := LoadCSV(r, c.opts)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(d.Names, c.names) {
					t.Fatalf("names %q, want %q", d.Names, c.names)
				}
				for j := range c.cols {
					if !slices.Equal(d.Columns[j], c.cols[j]) {
						t.Errorf("column %q = %v, want %v", d.Names[j], d.Columns[j], c.cols[j])
					}
				}
			})
		}
	}
}

// TestLoadCSVOrderAllErrors: a label outside the order that * gives every
// text column is reported at the line where it first appears.
func TestLoadCSVOrderAllErrors(t *testing.T) {
	csv := "q1,q2\nyes,no\nno,yes\nno,maybe\n"
	_, _, err := LoadCSV(strings.NewReader(csv), CSVOptions{OrderAll: []string{"no", "yes"}})
	want := `line 4: column q2: value "maybe" is not in the order * gives every text column ["no", "yes"]; if "maybe" marks a missing cell, add it to na; if column q2 is not to be modelled, drop = [q2] leaves it out`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	// A column of numbers with one text: the text is named, at its line.
	csv = "a,q\n1,yes\n2,no\nx,no\n3,yes\n"
	_, _, err = LoadCSV(strings.NewReader(csv), CSVOptions{OrderAll: []string{"no", "yes"}})
	want = `line 4: column a: "x" is not a number, but the column's other cells are, such as "1", which the order * for text columns does not list; if "x" marks a missing cell, add it to na`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	// A text column whose labels are all in the order, with one number:
	// the number is named, at its own line.
	csv = "a\nlow\nhigh\nlow\n2\n"
	_, _, err = LoadCSV(strings.NewReader(csv), CSVOptions{OrderAll: []string{"low", "high"}})
	want = `line 5: column a: value "2" is not in the order * gives every text column ["low", "high"]; if "2" marks a missing cell, add it to na; if column a is not to be modelled, drop = [a] leaves it out`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	// An identifier column that the order * reaches: drop, not na (its
	// first text, R001, marks no missing cell).
	rows := strings.NewReplacer(",0\n", ",low\n", ",1\n", ",high\n", ",2\n", ",low\n").Replace(idRows(30))
	_, _, err = LoadCSV(strings.NewReader("id,q\n"+rows), CSVOptions{OrderAll: []string{"low", "high"}})
	want = `line 2: column id: value "R001" is not in the order * gives every text column: the column's 30 distinct texts in 30 cells look like identifiers or free text, which drop = [id] leaves out`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestLoadCSVManyValues reads a column of more distinct numbers than are
// interned (it switches to numbers) beside a text column, and a text
// column with as many labels.
func TestLoadCSVManyValues(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,s\n")
	n := 3*maxDistinct + 7
	for i := range n {
		fmt.Fprintf(&b, "%d.5,%s\n", n-i, []string{"lo", "hi", "NA"}[i%3])
	}
	d, _, err := LoadCSV(strings.NewReader(b.String()), CSVOptions{OrderAll: []string{"lo", "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.N() != n || d.Columns[0][0] != float64(n)+0.5 || d.Columns[0][n-1] != 1.5 {
		t.Errorf("x: %d rows, first %v, last %v", d.N(), d.Columns[0][0], d.Columns[0][n-1])
	}
	if d.Columns[1][0] != 1 || d.Columns[1][1] != 2 || !math.IsNaN(d.Columns[1][2]) || d.Labels[1] == nil {
		t.Errorf("s: %v labels %v", d.Columns[1][:3], d.Labels[1])
	}
	b.WriteString("oops,lo\n")
	_, _, err = LoadCSV(strings.NewReader(b.String()), CSVOptions{})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf(`line %d: column x: cannot read "oops" as a number`, n+2)) {
		t.Errorf("error %v, want the line of oops", err)
	}
}

// TestLoadMissingFile: a load of a file that is not there says where a
// relative path was looked for, not Go's "stat x: no such file or
// directory".
func TestLoadMissingFile(t *testing.T) {
	s := New(Options{Dir: "testdata"})
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"data/nothere.csv":   "data/nothere.csv: cannot load data: no file data/nothere.csv (looked in " + dir + ")",
		dir + "/nothere.csv": dir + "/nothere.csv: cannot load data: no file " + dir + "/nothere.csv",
		// A typo of a file that is there, and a file kept in a directory
		// beside the one looked in, are suggested (found by the teaching
		// review: a student's load("gss.csv") of the notebooks' data/gss.csv).
		"survy.csv":             "survy.csv: cannot load data: no file survy.csv (looked in " + dir + "); did you mean survey.csv?",
		"../testdata/survy.csv": "../testdata/survy.csv: cannot load data: no file ../testdata/survy.csv (looked in " + dir + "); did you mean ../testdata/survey.csv?",
		"gss_hoff2007.csv":      "gss_hoff2007.csv: cannot load data: no file gss_hoff2007.csv (looked in " + dir + ")",
	} {
		err := s.load(context.Background(), &compiler.LoadData{Name: "d", Path: path}, &recorder{})
		if err == nil || err.Error() != want {
			t.Errorf("load(%q): %v, want %s", path, err, want)
		}
	}
}

// TestLoadShippedGSS reads the shipped GSS extract: 1002 rows, 7 columns,
// with missing values.
func TestLoadShippedGSS(t *testing.T) {
	f, err := os.Open("../notebooks/data/gss_hoff2007.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, warns, err := LoadCSV(f, CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.N() != 1002 || len(d.Names) != 7 {
		t.Errorf("got %d rows × %d columns, want 1002 × 7", d.N(), len(d.Names))
	}
	if len(warns) != 0 {
		t.Errorf("unexpected warnings %q", warns)
	}
	missing := 0
	for _, col := range d.Columns {
		for _, v := range col {
			if math.IsNaN(v) {
				missing++
			}
		}
	}
	if missing == 0 {
		t.Error("the GSS extract has missing values; none were read")
	}
}

// FuzzLoadCSV reads arbitrary text with an order for one column (if
// orderCol is set), a separator, a missing-value marker and an order for
// every other text column (if all is set): it must fail with an error or
// give equal columns of finite values. A text whose lines end with a lone
// '\r' reads as it does with '\n' instead.
func FuzzLoadCSV(f *testing.F) {
	f.Add("a,b\n1,2\n,NA\n", "", byte(0), "", false)
	f.Add("s,t\nm,1\nf,x\n", "s", byte(0), "", false)
	f.Add("\"a\nb\",c\n1,2\n", "", byte(0), "", false)
	f.Add("a\n\n\n1\n", "a", byte(0), "", false)
	f.Add("a;b\n1;-99\n2;3\n", "", byte(';'), "-99", false)
	f.Add("a\tb\nm\tlo\nf\thi\n", "a", byte('\t'), ".", true)
	f.Add("a;b;c\n1;2;3\n", "", byte(0), "", false)
	f.Add("q1|q2\nlo|hi\n.|lo\n", "", byte('|'), ".", true)
	f.Add("a,b\r1,\"m\rf\"\r2,1\r", "", byte(0), "", false)
	f.Add("s,b\r\nm,\"1\r2\"\r\nf,1\r\n", "s", byte(0), "", false)
	f.Add("\ufeffa,b,,\r\n1,2,,\r\n", "", byte(0), "", false) // empty columns with no name
	f.Add("a,,b\n1,x,2\n", "", byte(0), "", false)
	f.Add("inc,q\n1,lo\nrefused,hi\n-99,DK\n", "", byte(0), "-99", false)
	f.Fuzz(func(t *testing.T, text, orderCol string, sep byte, na string, all bool) {
		opts := CSVOptions{NA: []string{na}}
		if orderCol != "" {
			opts.Order = map[string][]string{orderCol: {"m", "f"}}
		}
		if sep != 0 && sep != '"' && sep != '\r' && sep != '\n' && sep < 0x80 {
			opts.Sep = rune(sep)
		}
		if all {
			opts.OrderAll = []string{"lo", "hi"}
		}
		d, _, err := LoadCSV(strings.NewReader(text), opts)
		if !strings.Contains(text, "\n") && loneCRLines(bufio.NewReaderSize(strings.NewReader(text), 64<<10)) {
			// Lines that end with '\r' read as those lines ending with '\n'.
			d2, _, err2 := LoadCSV(strings.NewReader(strings.ReplaceAll(text, "\r", "\n")), opts)
			switch {
			case (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error():
				t.Fatalf("read with lone CRs: %v; with LFs: %v", err, err2)
			case err == nil && !slices.Equal(d.Names, d2.Names):
				t.Fatalf("names with lone CRs %q, with LFs %q", d.Names, d2.Names)
			case err == nil && !slices.EqualFunc(d.Columns, d2.Columns, func(a, b []float64) bool {
				return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || x != x && y != y })
			}):
				t.Fatalf("columns with lone CRs %v, with LFs %v", d.Columns, d2.Columns)
			}
		}
		if err != nil {
			return
		}
		for j := range d.Columns {
			if len(d.Columns[j]) != d.N() {
				t.Fatalf("column %d has %d rows, column 0 has %d", j, len(d.Columns[j]), d.N())
			}
			for _, v := range d.Columns[j] {
				if math.IsInf(v, 0) {
					t.Fatalf("column %d holds an infinite value", j)
				}
			}
		}
	})
}

// TestCountLevels: the count of distinct observed values by the bit set
// (small whole numbers), the list and the map agree with counting by
// sorting, with missing cells, negative zero, fractions, large values and
// columns of many levels.
func TestCountLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	cols := [][]float64{{}, {math.NaN()}, {0, math.Copysign(0, -1), 1}, {63, 64, 63}, {-1, 1, -1}, {0.5, 1.5, 0.5}, {1e300, 1, 2}}
	for range 200 {
		col := make([]float64, 1+rng.IntN(500))
		levels := 1 + rng.IntN(100)
		for i := range col {
			switch rng.IntN(10) {
			case 0:
				col[i] = math.NaN()
			default:
				col[i] = float64(rng.IntN(levels))
				if levels > 50 {
					col[i] -= 20 // some negative
				}
			}
		}
		cols = append(cols, col)
	}
	for _, col := range cols {
		var obs []float64
		for _, v := range col {
			if v == v {
				obs = append(obs, v)
			}
		}
		slices.Sort(obs)
		want := len(slices.Compact(obs))
		if got := countLevels(col); got != want {
			t.Fatalf("countLevels(%v) = %d, want %d", col, got, want)
		}
		if got := countLevelsAny(col); got != want {
			t.Fatalf("countLevelsAny(%v) = %d, want %d", col, got, want)
		}
	}
}

// TestDatasetInfo: Info counts each column's levels, missing and
// single-occurrence cells, lists a numeric column's observed values, and
// every call returns its own copy, so that a
// caller renaming what it got (ReadData) changes nothing for the next.
func TestDatasetInfo(t *testing.T) {
	d := &Dataset{Name: "d", Names: []string{"a", "b"}, Columns: [][]float64{{1, 2, 2, math.NaN()}, {0.5, 1.5, 2.5, 3.5}}, Labels: [][]string{{"x", "y"}, nil}}
	want := []compiler.ColumnInfo{{Name: "a", Levels: 2, Missing: 1, Singletons: 1, Text: true, Labels: []string{"x", "y"}, Rarer: 1}, {Name: "b", Levels: 4, Singletons: 4, Values: []float64{0.5, 1.5, 2.5, 3.5}}}
	for range 2 {
		info := d.Info()
		if info.Name != "d" || info.N != 4 || !reflect.DeepEqual(info.Columns, want) {
			t.Fatalf("Info = %+v, want columns %+v", info, want)
		}
		info.Name = "renamed"
		info.Columns[0].Name = "renamed"
		info.Columns[0].Labels[0] = "renamed"
	}
}

// TestSummaryCountsLevels: summary DATA[COL, ...] counts each level of
// the columns named or numbered, lowest first, with the missing cells last
// (summary DATA said only how many levels a column has, so a category of 3
// respondents, or a question that 2 of 800 answered no, went unseen until
// its entries of C mixed slowly); a column of many levels is shown in 5
// ranges of about equal counts.
func TestSummaryCountsLevels(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("region,consent,income\n")
	for i := range 100 {
		region := []string{"north", "south"}[i%2]
		if i < 3 {
			region = "islands"
		}
		consent := "yes"
		if i == 7 || i == 30 {
			consent = "no"
		}
		income := strconv.Itoa(1000 + i)
		if i >= 95 {
			income = "NA"
		}
		fmt.Fprintf(&csv, "%s,%s,%s\n", region, consent, income)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	out := mustRun(t, s, `data s = load("s.csv", order = {region: ["north", "south", "islands"], consent: ["no", "yes"]})`+"\n"+
		"summary s[region, 2, income]")
	var got []string
	for _, l := range captionedLines(t, out.displays[len(out.displays)-1]) {
		got = append(got, strings.Join(strings.Fields(l), " "))
	}
	want := []string{
		"column level count percent",
		"region north 48 48.0",
		"region south 49 49.0",
		"region islands 3 3.0",
		"region NA 0 NA",
		"consent no 2 2.0",
		"consent yes 98 98.0",
		"consent NA 0 NA",
		"income 1000–1018 19 20.0",
		"income 1019–1037 19 20.0",
		"income 1038–1056 19 20.0",
		"income 1057–1075 19 20.0",
		"income 1076–1094 19 20.0",
		"income NA 5 NA",
	}
	if !slices.Equal(got, want) {
		t.Errorf("summary s[region, 2, income]:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestOrderLabelsAreTrimmed: cells are read trimmed, and so are the labels
// of an order: order = {s: ["no ", "yes"]} loads a column of no and yes (it
// was refused: value "no" is not in the column's order ["no ", "yes"] (did
// you mean "no "?)).
func TestOrderLabelsAreTrimmed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte("s,x\nyes,1\n no,2\nno ,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	mustRun(t, s, `data d = load("s.csv", order = {s: ["no ", " yes"]})`)
	d := s.data["d"]
	if want := []float64{2, 1, 1}; !slices.Equal(d.Columns[0], want) {
		t.Errorf("column s = %v, want %v", d.Columns[0], want)
	}
	if want := []string{"no", "yes"}; !slices.Equal(d.Labels[0], want) {
		t.Errorf("labels %q, want %q", d.Labels[0], want)
	}
}

// TestLoadCSVQuotedHeaderWithOtherSeparator: a header of quoted names (as
// R's write.csv writes it) read with the wrong sep said encoding/csv's
// `extraneous or missing " in quoted-field`; it says which sep reads it.
func TestLoadCSVQuotedHeaderWithOtherSeparator(t *testing.T) {
	cases := []struct {
		name, csv string
		sep       rune
		want      string
	}{
		{"commas read with tabs", "\"income\",\"degree\"\n1,2\n", '\t', `line 1: the header does not read as columns separated by tabs: the file looks separated by ","; load it with sep = ","`},
		{"semicolons read with commas", "\"income\";\"degree\"\n1;2\n", ',', `the file looks separated by ";"; load it with sep = ";"`},
		{"a stray quote, the separator right", "\"inc\"ome,degree\n1,2\n", ',', `line 1: extraneous or missing " in quoted-field`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := LoadCSV(strings.NewReader(c.csv), CSVOptions{Sep: c.sep})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestLoadMissingFileHabits: a path that misses a file by the case of its
// name (GSS.csv for gss.csv, which Windows and macOS would open) names the
// file, and a path starting with ~ says that ~ is not expanded.
func TestLoadMissingFileHabits(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Survey.csv"), []byte("a\n1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	for path, want := range map[string]string{
		"survey.csv":   "; did you mean Survey.csv? (names of files are case-sensitive)",
		"./SURVEY.CSV": "; did you mean Survey.csv? (names of files are case-sensitive)",
		"~/survey.csv": "; ~ is not your home directory here: give the path from the script's directory, or the whole path",
		"other.csv":    "no file other.csv (looked in " + dir + ")",
		"nodir/x.csv":  "no file nodir/x.csv (looked in " + dir + ")",
	} {
		err := s.load(context.Background(), &compiler.LoadData{Name: "d", Path: path}, &recorder{})
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("load(%q): %v, want one ending %q", path, err, want)
		}
	}
}

// TestLoadMissingFileInDataDir: a load of a file kept in a directory beside
// the one looked in (the shipped notebooks keep theirs in data/) suggests
// that path.
func TestLoadMissingFileInDataDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "gss.csv"), []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir})
	err := s.load(context.Background(), &compiler.LoadData{Name: "d", Path: "gss.csv"}, &recorder{})
	want := "gss.csv: cannot load data: no file gss.csv (looked in " + dir + "); did you mean data/gss.csv?"
	if err == nil || err.Error() != want {
		t.Errorf("load: %v, want %s", err, want)
	}
}

// TestKnownValuesUpToTheirLimit: a numeric column lists its observed
// values up to compiler.MaxKnownValues of them, and none past (predict's
// given values are then checked when it runs); a text column, none.
func TestKnownValuesUpToTheirLimit(t *testing.T) {
	for _, n := range []int{compiler.MaxKnownValues, compiler.MaxKnownValues + 1} {
		col := make([]float64, n+1)
		for i := range n {
			col[i] = float64(n - i)
		}
		col[n] = math.NaN()
		d := &Dataset{Names: []string{"x"}, Columns: [][]float64{col}}
		got := knownValues(d, 0)
		if n <= compiler.MaxKnownValues && (len(got) != n || got[0] != 1 || got[n-1] != float64(n)) {
			t.Errorf("%d values: got %d, from %v", n, len(got), got[:min(len(got), 3)])
		}
		if n > compiler.MaxKnownValues && got != nil {
			t.Errorf("%d values: listed %d", n, len(got))
		}
	}
	d := &Dataset{Names: []string{"a"}, Columns: [][]float64{{1, 2}}, Labels: [][]string{{"x", "y"}}}
	if got := knownValues(d, 0); got != nil {
		t.Errorf("a text column lists %v", got)
	}
}
