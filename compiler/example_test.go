package compiler_test

import (
	"errors"
	"fmt"
	"sort"

	"github.com/copulang/copulang/compiler"
	"github.com/copulang/copulang/dsl"
)

// env is a minimal session with one data set.
type env map[string]compiler.Binding

func (e env) Lookup(name string) (compiler.Binding, bool) { b, ok := e[name]; return b, ok }

func (e env) Names() []string {
	var out []string
	for n := range e {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func survey() env {
	return env{"survey": &compiler.DataInfo{Name: "survey", N: 400, Columns: []compiler.ColumnInfo{
		{Name: "income", Levels: 40}, {Name: "degree", Levels: 5}, {Name: "happy", Levels: 3, Missing: 7},
	}}}
}

func ExampleCheck() {
	src := []byte(`model m {
  Y = survey[income, degree, happy]
  Z ~ GaussianCopula(C)
  Y ordinal Z
  C ~ InverseWishart(df = p + 2)
}
fit m with hmc(T = pi/2), iter = 2000, chains = 2`)
	file, err := dsl.Parse("cell", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	prog, err := compiler.Check(file, survey())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range prog.Stmts {
		switch s := s.(type) {
		case *compiler.DeclareModel:
			fmt.Printf("%s: model %s on %s%v: %+v\n", s.Pos(), s.Name, s.Data, s.Columns, s.Model)
		case *compiler.Fit:
			fmt.Printf("%s: fit %s with %s, T = %.4f, iter %d, warmup %d, chains %d, seed %d\n",
				s.Pos(), s.Model, s.Method, s.TravelTime, s.Iter, s.Warmup, s.Chains, s.Seed)
		}
	}
	// Output:
	// cell:1:1: model m on survey[income degree happy]: {Prior:{DF:5 Scale:0}}
	// cell:7:1: fit m with hmc, T = 1.5708, iter 2000, warmup 1000, chains 2, seed 1
}

func ExampleCheck_errors() {
	src := []byte("model m {\n  Y = survey[income, degre]\n  Z ~ GausianCopula(C)\n  Y ordinal Z\n  C ~ FactorModel(k = 3)\n}")
	file, _ := dsl.Parse("", src)
	_, err := compiler.Check(file, survey())
	var list dsl.ErrorList
	if errors.As(err, &list) {
		fmt.Print(list.Format(src))
	}
	// Output:
	// 2:22: survey has no column degre
	//   Y = survey[income, degre]
	//                      ^
	// hint: did you mean degree?
	// 3:7: unknown distribution GausianCopula
	//   Z ~ GausianCopula(C)
	//       ^
	// hint: did you mean GaussianCopula?
}

func ExamplePlan() {
	src := []byte("model m { Y = survey; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart }\nfit m with hmc")
	file, _ := dsl.Parse("", src)
	e := survey()
	prog, err := compiler.Check(file, e)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := prog.Stmts[0].(*compiler.DeclareModel)
	plan, err := compiler.Plan(m, e["survey"].(*compiler.DataInfo), prog.Stmts[1].(*compiler.Fit))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(plan.Method, plan.ColumnHMC)
	for _, s := range plan.Steps {
		fmt.Printf("%s: %s\n", s.Name, s.Updates)
	}
	// Output:
	// hmc [true true true]
	// latent columns by exact HMC (Kalaitzis & Silva 2013): z of income, degree, happy (and their 7 missing cells, drawn from the conditional normal)
	// covariance by its inverse-Wishart conditional: V and C = Δ⁻¹VΔ⁻¹ (all columns)
}
