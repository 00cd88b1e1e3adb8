package dsl

import (
	"os"
	"strings"
	"testing"
)

func BenchmarkNormalMB(b *testing.B) {
	ex, err := os.ReadFile("testdata/language_examples.cop")
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.Write(ex)
		sb.WriteString("\n")
	}
	src := sb.String()
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			if _, err := Parse("", []byte(src)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("is_complete", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			IsComplete(src)
		}
	})
}
