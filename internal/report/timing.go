package report

import (
	"fmt"

	"github.com/floorbench/floorbench/internal/floor"
)

// TimingTable is the human timing baseline as a table: floor-transfer
// offsets (next speaker's start minus current turn's end) in milliseconds,
// for smooth transfers and with interruptions included.
func TimingTable(t floor.Timing) *Table {
	tb := &Table{Header: []string{"transfers", "n", "median ms", "p25 ms", "p75 ms", "overlap"}}
	row := func(name string, o floor.OffsetStats) []string {
		if o.N == 0 {
			return []string{name, "0", "—", "—", "—", "—"}
		}
		return []string{name, fmt.Sprint(o.N), offsetMS(o.Median), offsetMS(o.P25), offsetMS(o.P75), Rate(o.Overlap)}
	}
	tb.Rows = append(tb.Rows, row("smooth", t.Smooth), row("with interruptions", t.All))
	return tb
}

func offsetMS(s float64) string { return Signed(s*1000, 0) }
