package session

import (
	"math"
	"os"
	"strings"
	"testing"
)

func TestLoadCSV(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name     string
		csv      string
		order    map[string][]string
		names    []string
		cols     [][]float64
		warnings []string
	}{
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
			name:  "byte order mark and quoted header",
			csv:   "\ufeff\"x\",y\n1,2\n3,1\n",
			names: []string{"x", "y"},
			cols:  [][]float64{{1, 3}, {2, 1}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, warns, err := LoadCSV(strings.NewReader(c.csv), c.order)
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
		{"ragged row", "a,b\n1,2\n3\n", nil, "line 3: the row has 1 cells but the header names 2 columns"},
		{"unparsable cell", "a,b\n1,x\n", nil, `line 2: column b: cannot read "x" as a number; a column of text needs an explicit order`},
		{"label outside the order", "s\nm\nq\n", map[string][]string{"s": {"m", "f"}}, `line 3: column s: value "q" is not in the column's order ["m", "f"]`},
		{"misspelt label", "s\nmale\nfemal\n", map[string][]string{"s": {"male", "female"}}, `(did you mean "female"?)`},
		{"unknown column in order", "sex\nm\n", map[string][]string{"sx": {"m"}}, `order names column "sx", which the file does not have (did you mean sex?)`},
		{"duplicate header", "a,a\n1,2\n", nil, "line 1: column a: the name is used twice (columns 1 and 2)"},
		{"empty header name", "a,\n1,2\n", nil, "line 1: column 2 has an empty name"},
		{"infinite value", "a\nInf\n", nil, `cannot read "Inf" as a number`},
		{"bad quoting", "a\n\"1\n", nil, "line 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := LoadCSV(strings.NewReader(c.csv), c.order)
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", err, c.want)
			}
		})
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
	d, warns, err := LoadCSV(f, nil)
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

func FuzzLoadCSV(f *testing.F) {
	f.Add("a,b\n1,2\n,NA\n", "")
	f.Add("s,t\nm,1\nf,x\n", "s")
	f.Add("\"a\nb\",c\n1,2\n", "")
	f.Add("a\n\n\n1\n", "a")
	f.Fuzz(func(t *testing.T, text, orderCol string) {
		var order map[string][]string
		if orderCol != "" {
			order = map[string][]string{orderCol: {"m", "f"}}
		}
		d, _, err := LoadCSV(strings.NewReader(text), order)
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
