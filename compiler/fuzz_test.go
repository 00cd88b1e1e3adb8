package compiler

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/copulang/copulang/dsl"
)

// FuzzPipeline runs parse → check → plan (and Explain) on arbitrary text
// against the fake session: nothing may panic, failures must be
// positioned ErrorLists, and every checked model must plan or give an error.
func FuzzPipeline(f *testing.F) {
	for _, name := range []string{"testdata/language_examples.cop", "testdata/errors.golden"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, section := range strings.Split(string(data), "\n----\n") {
			in, _, _ := strings.Cut(section, "\n>>>")
			f.Add(in)
		}
	}
	f.Add(fullGSS + "fit m with hmc, iter = 10\nexplain m\nsummary m.C[INC, DEG]\nplot pairs m.C")
	f.Add(factorSim + "fit m with gibbs\nplot rmse [m, fm] vs sim\nsummary m.Lambda[Y2, 1]")
	f.Fuzz(func(t *testing.T, src string) {
		file, err := dsl.Parse("", []byte(src))
		if err != nil {
			return
		}
		env := newFakeEnv()
		prog, err := Check(file, env)
		if err != nil {
			var list dsl.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not a non-empty ErrorList", err)
			}
			for _, e := range list {
				if e.Pos.Line < 1 || e.Pos.Offset > len(src) {
					t.Fatalf("error %q has a bad position %#v", e.Msg, e.Pos)
				}
			}
			return
		}
		local := map[string]*DataInfo{}
		var last *Fit
		for _, s := range prog.Stmts {
			switch s := s.(type) {
			case *SimulateData:
				d := &DataInfo{Name: s.Name, N: s.N, HasTruth: true, TruthK: s.K}
				for j := 0; j < s.P; j++ {
					d.Columns = append(d.Columns, ColumnInfo{Name: fmt.Sprintf("Y%d", j+1), Levels: s.Levels})
				}
				local[s.Name] = d
			case *Fit:
				last = s
			case *DeclareModel:
				d := local[s.Data]
				if d == nil {
					if b, ok := env[s.Data]; ok {
						d, _ = b.(*DataInfo)
					}
				}
				if d == nil || s.Partial() {
					continue
				}
				if pl, err := Plan(s, d, last); err == nil {
					_ = pl.Explain()
				}
			}
		}
	})
}
