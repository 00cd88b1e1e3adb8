package session

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/copulang/copulang/inference"
)

// WriteDraws writes the post-warm-up draws of a fit as CSV in the stable
// CmdStan-style layout of language.md: a header `chain,draw,` followed by
// one column per scalar — `C.i.j` for i < j (1-based, in the model's column
// order) and, for factor models, `Lambda.i.h` — then one row per kept draw,
// chains numbered from 1 and draws from 1 within each chain. ArviZ reads it
// with pandas + az.from_dict, R's posterior with as_draws_df(read.csv(...)).
func WriteDraws(w io.Writer, r *inference.Result) error {
	bw := bufio.NewWriter(w)
	p, k := r.P, r.K
	bw.WriteString("chain,draw")
	for i := 0; i < p; i++ {
		for j := i + 1; j < p; j++ {
			fmt.Fprintf(bw, ",C.%d.%d", i+1, j+1)
		}
	}
	hasLambda := len(r.Lambda) > 0 && k > 0
	if hasLambda {
		for i := 0; i < p; i++ {
			for h := 0; h < k; h++ {
				fmt.Fprintf(bw, ",Lambda.%d.%d", i+1, h+1)
			}
		}
	}
	bw.WriteByte('\n')
	var num []byte
	for c, draws := range r.C {
		for d, cd := range draws {
			num = strconv.AppendInt(num[:0], int64(c+1), 10)
			num = append(num, ',')
			num = strconv.AppendInt(num, int64(d+1), 10)
			bw.Write(num)
			for i := 0; i < p; i++ {
				for j := i + 1; j < p; j++ {
					bw.WriteByte(',')
					bw.Write(strconv.AppendFloat(num[:0], cd[i*p+j], 'g', -1, 64))
				}
			}
			if hasLambda {
				for _, v := range r.Lambda[c][d] {
					bw.WriteByte(',')
					bw.Write(strconv.AppendFloat(num[:0], v, 'g', -1, 64))
				}
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}
