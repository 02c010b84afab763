package detect

import "context"

// Scores are one conversation's score tracks: EOT[k] and INT[k] belong to
// speaker k+1 and hold one value in [0, 1] per grid frame. The tracks of a
// task the system does not score (System.Tasks) are nil.
type Scores struct {
	FrameRate float64
	EOT       [][]float64
	INT       [][]float64
}

// Detector scores conversations. Implementations are causal (see the package
// documentation) and may hold resources such as ONNX Runtime sessions; Close
// releases them. A Detector is used by one goroutine at a time.
type Detector interface {
	Detect(ctx context.Context, c *Conversation) (*Scores, error)
	Close() error
}
