package session

import (
	"fmt"
	"math"

	"github.com/copulang/copulang/inference"
)

func ExampleSummaryTable() {
	sums := []inference.Summary{
		{Mean: 0.312, SD: 0.053, Q5: 0.224, Q50: 0.313, Q95: 0.399, ESSBulk: 1523.4, ESSTail: 1788.6, RHat: 1.0012, MCSEMean: 0.00136, MCSESD: 0.00096},
		{Mean: -0.4, SD: 0.1, Q5: -0.56, Q50: -0.4, Q95: -0.24, ESSBulk: math.NaN(), ESSTail: 98.5, RHat: 1.02, MCSEMean: math.NaN(), MCSESD: 0.0041},
	}
	fmt.Print(SummaryTable([]string{"C[income,degree]", "C[income,age]"}, sums).Text())
	// Output:
	// param               mean     sd      q5     q50     q95  ess_bulk  ess_tail   rhat  mcse_mean  mcse_sd
	// C[income,degree]   0.312  0.053   0.224   0.313   0.399      1523      1789  1.001     0.0014   0.0010
	// C[income,age]     -0.400  0.100  -0.560  -0.400  -0.240        NA        98  1.020         NA   0.0041
}
