package corpus

import "github.com/floorbench/floorbench/internal/floor"

// Gold derives the MPTB gold of a corpus's split ("" for all) from its
// event logs (DESIGN §3.6), in manifest order. `floorbench gold --corpus`
// prints it.
func Gold(dir, split string) (*floor.GoldSet, error) {
	c, err := Open(dir)
	if err != nil {
		return nil, err
	}
	convs, err := c.Conversations(split)
	if err != nil {
		return nil, err
	}
	g := &floor.GoldSet{TauPre: floor.DefaultTauPre, TauMax: floor.DefaultTauMax}
	for _, conv := range convs {
		l, err := c.Events(conv)
		if err != nil {
			return nil, err
		}
		g.Conversations = append(g.Conversations, floor.DeriveMPTB(conv.ID, conv.Duration, l.Events, floor.DefaultInterruptedGuard))
	}
	return g, nil
}
