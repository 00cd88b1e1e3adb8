package compiler

import (
	"reflect"
	"testing"

	"github.com/copulang/copulang/dsl"
)

// TestDeriveData: data NAME = SOURCE[COL, ...] where CONDITION checks into
// a DeriveData whose columns are resolved as a model's index resolves
// them (names, quoted names, positions), whose condition is a tree of
// and, or and not over comparisons with numbers or labels, and whose data
// later statements see with the kept columns.
func TestDeriveData(t *testing.T) {
	src := `data d = gss[INC, "DEG", 7] where AGE >= 50 and (DEG != 0 or not PINC in [1, 2])
data s = survey where sat >= "neutral"
data e = d[AGE]
model m { Y = d[INC, AGE]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }`
	f, err := dsl.Parse("", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := Check(f, newFakeEnv())
	if err != nil {
		t.Fatal(err)
	}
	d := prog.Stmts[0].(*DeriveData)
	if d.Name != "d" || d.Source != "gss" || d.From != nil || !reflect.DeepEqual(d.Columns, []string{"INC", "DEG", "AGE"}) {
		t.Errorf("d: %+v, want gss's INC, DEG and AGE", d)
	}
	if want := `gss[INC, "DEG", 7] where AGE >= 50 and (DEG != 0 or not PINC in [1, 2])`; d.Text != want {
		t.Errorf("d's text %q, want %q", d.Text, want)
	}
	w := d.Where
	if w.Op != "and" || len(w.Args) != 2 || w.Args[0].Op != ">=" || w.Args[0].Column != "AGE" || w.Args[0].Values[0].Number != 50 {
		t.Fatalf("d's condition %+v, want AGE >= 50 and (...)", w)
	}
	or := w.Args[1]
	if or.Op != "or" || or.Args[1].Op != "not" || or.Args[1].Args[0].Op != "in" || len(or.Args[1].Args[0].Values) != 2 {
		t.Errorf("d's condition's second test %+v, want DEG != 0 or not PINC in [1, 2]", or)
	}
	if got := w.Columns(); !reflect.DeepEqual(got, []string{"AGE", "DEG", "PINC"}) {
		t.Errorf("columns tested %v, want [AGE DEG PINC]", got)
	}
	s := prog.Stmts[1].(*DeriveData)
	if v := s.Where.Values; s.Where.Column != "sat" || len(v) != 1 || v[0].Label != "neutral" {
		t.Errorf("s's condition %+v, want sat >= \"neutral\"", s.Where)
	}
	if e := prog.Stmts[2].(*DeriveData); e.From != d || !reflect.DeepEqual(e.Columns, []string{"AGE"}) {
		t.Errorf("e derives from %v with columns %v, want d's statement and [AGE]", e.From, e.Columns)
	}
	if m := prog.Stmts[3].(*DeclareModel); m.Data != "d" || !reflect.DeepEqual(m.Columns, []string{"INC", "AGE"}) {
		t.Errorf("model on %s %v, want d [INC AGE]", m.Data, m.Columns)
	}
}
