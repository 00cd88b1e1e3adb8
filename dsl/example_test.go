package dsl_test

import (
	"errors"
	"fmt"

	"github.com/copulang/copulang/dsl"
)

func ExampleParse() {
	src := []byte("model m {\n  Y = gss[INC, DEG]\n  Z ~ GaussianCopula(C); Y ordinal Z\n  C ~ InverseWishart(df = p + 2)\n}\nfit m with hmc(T = pi/2), iter = 2000")
	f, err := dsl.Parse("cell", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range f.Stmts {
		start, _ := s.Span()
		fmt.Printf("%s %T\n", start, s)
	}
	fmt.Print(dsl.Format(f))
	// Output:
	// cell:1:1 *dsl.ModelStmt
	// cell:6:1 *dsl.FitStmt
	// model m {
	//   Y = gss[INC, DEG]
	//   Z ~ GaussianCopula(C)
	//   Y ordinal Z
	//   C ~ InverseWishart(df = p + 2)
	// }
	// fit m with hmc(T = pi / 2), iter = 2000
}

func ExampleParse_errors() {
	src := []byte("data sim = simulate(FullCopula(p = 4), n = 100, levels = 3, seed = 1)\nfitt m with gibbs")
	_, err := dsl.Parse("", src)
	var list dsl.ErrorList
	if errors.As(err, &list) {
		fmt.Print(list.Format(src))
	}
	// Output:
	// 2:1: unexpected "fitt"
	// fitt m with gibbs
	// ^
	// hint: did you mean fit?
}

func ExampleIsComplete() {
	fmt.Println(dsl.IsComplete("model m {"))
	fmt.Println(dsl.IsComplete("model m { Y = gss }"))
	fmt.Println(dsl.IsComplete("fitt m"))
	// Output:
	// incomplete
	// complete
	// invalid
}
