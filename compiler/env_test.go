package compiler

import (
	"sort"

	"github.com/copulang/copulang/inference"
)

// fakeEnv is a session with a gss data set (the columns of Hoff 2007), a
// simulated data set, and fitted and unfitted models on them.
type fakeEnv map[string]Binding

func (e fakeEnv) Lookup(name string) (Binding, bool) {
	b, ok := e[name]
	return b, ok
}

func (e fakeEnv) Names() []string {
	var out []string
	for n := range e {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// shippedGSSInfo has the columns of notebooks/data/gss_hoff2007.csv, as
// the language reference's examples use them.
func shippedGSSInfo() *DataInfo {
	d := gssInfo()
	for j, name := range []string{"income", "degree", "children", "pincome", "pdegree", "pchildren", "age"} {
		d.Columns[j].Name = name
	}
	return d
}

// gssInfo has the columns of the GSS data of Hoff (2007): income and age
// with many distinct values, the others coarse.
func gssInfo() *DataInfo {
	return &DataInfo{Name: "gss", N: 1002, Columns: []ColumnInfo{
		{Name: "INC", Levels: 26, Missing: 12},
		{Name: "DEG", Levels: 5, Missing: 3},
		{Name: "CHILD", Levels: 9},
		{Name: "PINC", Levels: 5, Missing: 80},
		{Name: "PDEG", Levels: 5, Missing: 20},
		{Name: "PCHILD", Levels: 9, Missing: 1},
		{Name: "AGE", Levels: 71},
	}}
}

func newFakeEnv() fakeEnv {
	gss := gssInfo()
	sim := &DataInfo{Name: "sim", N: 500, HasTruth: true, TruthK: 2}
	for _, n := range []string{"Y1", "Y2", "Y3", "Y4", "Y5", "Y6"} {
		sim.Columns = append(sim.Columns, ColumnInfo{Name: n, Levels: 4})
	}
	return fakeEnv{
		"gss": gss,
		"sim": sim,
		"survey": &DataInfo{Name: "survey", N: 300, Columns: []ColumnInfo{
			{Name: "sat", Levels: 3, Text: true, Labels: []string{"disagree", "neutral", "agree"}},
			{Name: "age group", Levels: 4, Missing: 5},
			{Name: "where", Levels: 2},
			{Name: "sat2", Levels: 3, Text: true, Labels: []string{"disagree", "neutral", "agree"}},
			{Name: "trust", Levels: 3, Text: true, Labels: []string{"agree", "neutral", "disagree"}},
			{Name: "mood", Levels: 2, Text: true, Labels: []string{"low", "high"}},
			{Name: "score", Levels: 5},
		}},
		"hoff": &ModelInfo{Name: "hoff", Data: "gss", Columns: []string{"INC", "DEG", "AGE"},
			Model: inference.FullCorrelation{Prior: inference.InverseWishart{DF: 5}}, Fitted: true, Method: inference.HMC},
		"fm": &ModelInfo{Name: "fm", Data: "sim", Columns: []string{"Y1", "Y2", "Y3", "Y4", "Y5", "Y6"},
			Model: inference.FactorModel{K: 2}, Fitted: true, Method: inference.PX, K: 2},
		"opinion": &ModelInfo{Name: "opinion", Data: "survey", Columns: []string{"sat", "age group"},
			Model: inference.FullCorrelation{Prior: inference.InverseWishart{}}, Fitted: true, Method: inference.Gibbs},
		"draft": &ModelInfo{Name: "draft", Data: "gss", Columns: []string{"INC", "DEG"},
			Model: inference.FullCorrelation{Prior: inference.InverseWishart{}}},
	}
}
