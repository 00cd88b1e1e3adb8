package compiler

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/copulang/copulang/inference"
)

// planFor checks src (which declares model m, and may fit it) and plans m.
func planFor(t *testing.T, src string, env fakeEnv) (*InferencePlan, error) {
	t.Helper()
	prog := mustCheck(t, src, env)
	var decl *DeclareModel
	var fit *Fit
	for _, s := range prog.Stmts {
		switch s := s.(type) {
		case *DeclareModel:
			decl = s
		case *Fit:
			fit = s
		}
	}
	d := env[decl.Data].(*DataInfo)
	return Plan(decl, d, fit)
}

const (
	fullGSS   = "model m { Y = gss; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }\n"
	factorSim = "model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2) }\n"
)

func TestPlan(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		method    inference.Method
		columnHMC []bool
		steps     int
		note      string // a substring of some note, "" for no notes
	}{
		// gss: INC (26 levels) and AGE (71) get Gibbs, the coarse columns HMC.
		{"auto full", fullGSS, inference.HMC, []bool{false, true, true, true, true, true, false}, 3, ""},
		{"auto full by default", fullGSS + "fit m", inference.HMC, []bool{false, true, true, true, true, true, false}, 3, ""},
		{"gibbs full", fullGSS + "fit m with gibbs", inference.Gibbs, nil, 2, ""},
		{"hmc full", fullGSS + "fit m with hmc(T = 1)", inference.HMC, []bool{true, true, true, true, true, true, true}, 2, "column INC has 26 distinct values"},
		{"auto coarse only", "model m { Y = gss[DEG, PDEG]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ(eta = 2) }", inference.HMC, []bool{true, true}, 2, ""},
		{"auto fine only", "model m { Y = gss[INC, AGE]; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }", inference.Gibbs, nil, 2, ""},
		{"auto factor", factorSim, inference.Interweave, nil, 3, ""},
		{"interweave factor", factorSim + "fit m with interweave(T = 2)", inference.Interweave, nil, 3, ""},
		{"hmc factor", factorSim + "fit m with hmc", inference.Interweave, nil, 3, "hmc on a factor model is interweave"},
		{"px factor", factorSim + "fit m with px", inference.PX, nil, 3, ""},
		{"gibbs factor", factorSim + "fit m with gibbs", inference.PX, nil, 3, "gibbs on a factor model is its parameter-expanded"},
		{"px gdp", "model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ FactorModel(k = 2, loadings = GDP) }\nfit m with px", inference.PX, nil, 4, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := planFor(t, tt.src, newFakeEnv())
			if err != nil {
				t.Fatal(err)
			}
			if pl.Method != tt.method {
				t.Errorf("method %v, want %v", pl.Method, tt.method)
			}
			if !reflect.DeepEqual(pl.ColumnHMC, tt.columnHMC) {
				t.Errorf("ColumnHMC %v, want %v", pl.ColumnHMC, tt.columnHMC)
			}
			if len(pl.Steps) != tt.steps {
				t.Errorf("%d steps, want %d:\n%s", len(pl.Steps), tt.steps, pl.Explain())
			}
			notes := strings.Join(pl.Notes, "\n")
			if (tt.note == "") != (notes == "") || !strings.Contains(notes, tt.note) {
				t.Errorf("notes %q, want one containing %q", notes, tt.note)
			}
			for _, s := range pl.Steps {
				if s.Name == "" || s.Updates == "" || s.Why == "" || s.Cost == "" {
					t.Errorf("incomplete step %+v", s)
				}
			}
		})
	}
}

func TestPlanRefuses(t *testing.T) {
	env := newFakeEnv()
	full := &DeclareModel{Name: "m", Data: "gss", Columns: []string{"DEG", "PDEG"}, Model: inference.FullCorrelation{}}
	gss := env["gss"].(*DataInfo)
	tests := []struct {
		name string
		m    *DeclareModel
		f    *Fit
		want string
	}{
		{"px on full", full, &Fit{Method: "px"}, "px samples factor models"},
		{"interweave on full", full, &Fit{Method: "interweave"}, "interweave samples factor models"},
		{"unknown column", &DeclareModel{Name: "m", Columns: []string{"DEG", "XX"}, Model: inference.FullCorrelation{}}, nil, "no column XX"},
		{"one column", &DeclareModel{Name: "m", Columns: []string{"DEG"}, Model: inference.FullCorrelation{}}, nil, "at least 2 columns"},
		{"k too large", &DeclareModel{Name: "m", Columns: []string{"DEG", "PDEG"}, Model: inference.FactorModel{K: 2}}, nil, "k = 2 factors"},
		{"no model", nil, nil, "needs a model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Plan(tt.m, gss, tt.f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestExplainGolden pins the text of explain for the main plans.
func TestExplainGolden(t *testing.T) {
	var b strings.Builder
	for _, src := range []string{
		fullGSS,
		fullGSS + "fit m with gibbs, iter = 200, chains = 2",
		factorSim + "fit m with px, seed = 3",
		factorSim,
	} {
		pl, err := planFor(t, src, newFakeEnv())
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(">>> " + strings.ReplaceAll(strings.TrimSpace(src), "\n", "; ") + "\n")
		b.WriteString(pl.Explain())
		b.WriteString("\n")
	}
	got := b.String()
	path := "testdata/explain.golden"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("explain output differs from %s (go test -update to accept):\n%s", path, got)
	}
}
