package inference

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestWithoutStates: an encoding without its chains' states (most of a
// large fit's bytes) reads back as the encoding with them does, draw for
// draw, but with no chains to continue; for an extension's encoding
// (EncodeAfter) too. AdoptChains gives it the chains of a run that made
// its draws again (Run with its Iter), after which it extends as the
// Result with states does, bit for bit; a run of another seed is refused.
func TestWithoutStates(t *testing.T) {
	t.Parallel()
	cols, _ := saveTestData(t)
	for _, tc := range []struct {
		name string
		spec Spec
	}{
		{"gibbs", Spec{Method: Gibbs, KeepWarmup: true}},
		{"px", Spec{Model: FactorModel{K: 2}, Method: PX, Thin: 2}},
		{"thinned imputations", Spec{Method: Gibbs, MaxImputed: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Columns, spec.Warmup, spec.Iter, spec.Chains, spec.Seed = cols, 20, 40, 2, 3
			fit, err := Run(context.Background(), spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := fit.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			stateless := withoutStates(t, whole)
			if states := 2 * 8 * len(fit.C) * fit.N * fit.P; len(whole)-len(stateless) < states {
				t.Errorf("without states: %d bytes of %d; want at least the %d of the chains' latent values and sums left out", len(stateless), len(whole), states)
			}
			if e, err := WithoutStates(bytes.NewReader(stateless), int64(len(stateless))); e != nil || err != nil {
				t.Errorf("WithoutStates of an encoding without states: %v, %v; want nil, nil", e, err)
			}
			read, err := UnmarshalResult(stateless, spec)
			if err != nil {
				t.Fatal(err)
			}
			withStates, err := UnmarshalResult(whole, spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := exportedDifferences(withStates, read); diff != "" {
				t.Errorf("read without states, it differs: %s", diff)
			}
			if err := read.Extendable(); !errors.Is(err, ErrNoChainStates) {
				t.Errorf("read without states, Extendable says %v, want ErrNoChainStates", err)
			}

			// An extension's encoding without states, read after the fit
			// without states.
			ext, err := withStates.Extend(context.Background(), 30, nil)
			if err != nil {
				t.Fatal(err)
			}
			after, err := ext.EncodeAfter(withStates)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := after.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			extRead, err := ReadResultAfter(read, bytes.NewReader(withoutStates(t, buf.Bytes())), int64(len(withoutStates(t, buf.Bytes()))), spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := exportedDifferences(ext, extRead); diff != "" {
				t.Errorf("an extension read without states differs: %s", diff)
			}

			// Its chains, made again, continue it as the extension's own;
			// those of a run of another seed, or other data, are refused.
			otherSeed, otherData := spec, spec
			otherSeed.Seed++
			otherData.Columns = append([][]float64{slices.Clone(cols[0])}, cols[1:]...)
			otherData.Columns[0][0], otherData.Columns[0][1] = otherData.Columns[0][1], otherData.Columns[0][0]+1
			for _, o := range []struct {
				spec Spec
				want string
			}{{otherSeed, "other settings"}, {otherData, "differs"}} {
				o.spec.Iter = extRead.Iter
				if wrong, err := Run(context.Background(), o.spec, nil); err != nil {
					t.Fatal(err)
				} else if err := extRead.AdoptChains(wrong); err == nil || !strings.Contains(err.Error(), o.want) {
					t.Errorf("AdoptChains of another run: %v, want %q", err, o.want)
				}
			}
			again := spec
			again.Iter = extRead.Iter
			replay, err := Run(context.Background(), again, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := extRead.AdoptChains(replay); err != nil {
				t.Fatal(err)
			}
			if err := replay.Extendable(); err == nil {
				t.Error("the run whose chains were adopted can still be extended")
			}
			want, err := ext.Extend(context.Background(), 7, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := extRead.Extend(context.Background(), 7, nil)
			if err != nil {
				t.Fatal(err)
			}
			got.Elapsed = want.Elapsed
			if diff := exportedDifferences(want, got); diff != "" {
				t.Errorf("extended after adopting chains, it differs: %s", diff)
			}
			wantBytes, err := want.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			gotBytes, err := got.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(wantBytes, gotBytes) {
				t.Errorf("extended after adopting chains, its encoding (chain states included) differs")
			}
		})
	}
}

// withoutStates is the encoding b without its chains' states.
func withoutStates(t *testing.T, b []byte) []byte {
	t.Helper()
	e, err := WithoutStates(bytes.NewReader(b), int64(len(b)))
	if err != nil || e == nil {
		t.Fatalf("WithoutStates: %v, %v", e, err)
	}
	var buf bytes.Buffer
	if n, err := e.WriteTo(&buf); err != nil || n != int64(e.Size()) {
		t.Fatalf("WithoutStates wrote %d bytes of %d: %v", n, e.Size(), err)
	}
	return buf.Bytes()
}

// FuzzWithoutStates feeds arbitrary bytes, and damaged encodings of a
// small fit, to WithoutStates, which decodes the gob at an encoding's
// start: it must refuse or return an encoding whose WriteTo writes its
// Size, never panic; and what it writes must decode, when the input did,
// to the same draws.
func FuzzWithoutStates(f *testing.F) {
	cols, _ := saveTestData(f)
	fit, err := Run(context.Background(), Spec{Columns: cols, Method: Gibbs, Warmup: 5, Iter: 10, Chains: 2, Seed: 1}, nil)
	if err != nil {
		f.Fatal(err)
	}
	whole, err := fit.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(whole)
	f.Add(whole[:len(whole)/2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := WithoutStates(bytes.NewReader(b), int64(len(b)))
		if err != nil || e == nil {
			return
		}
		var buf bytes.Buffer
		if n, err := e.WriteTo(&buf); err != nil || n != int64(e.Size()) || buf.Len() != e.Size() {
			t.Fatalf("wrote %d bytes (%d buffered) of %d: %v", n, buf.Len(), e.Size(), err)
		}
		spec := Spec{Columns: cols, Method: Gibbs, Warmup: 5, Iter: 10, Chains: 2, Seed: 1}
		in, err := UnmarshalResult(b, spec)
		if err != nil {
			return
		}
		out, err := UnmarshalResult(buf.Bytes(), spec)
		if err != nil {
			t.Fatalf("the input decodes, its encoding without states does not: %v", err)
		}
		if !reflect.DeepEqual(in.C, out.C) {
			t.Fatal("the draws of C differ without the states")
		}
	})
}
