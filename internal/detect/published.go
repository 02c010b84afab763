package detect

// A PublishedStatus says how a published system runs in floorbench
// (docs/systems.md#published-systems).
type PublishedStatus string

const (
	// StatusPublishedFile: an example spec runs the file its authors
	// publish, as it is.
	StatusPublishedFile PublishedStatus = "runs from its published file"
	// StatusExport: no ONNX file is published; docs/systems.md says how
	// to export one that the example spec runs.
	StatusExport PublishedStatus = "runs from a documented export"
	// StatusExternal: the system cannot run through the onnx family; its
	// tracks come in as probability files (family external).
	StatusExternal PublishedStatus = "external only"
	// StatusBuiltIn: a built-in family is the system.
	StatusBuiltIn PublishedStatus = "built in"
	// StatusProviderVAD: a provider's own turn detection (realtime-vad).
	StatusProviderVAD PublishedStatus = "provider VAD (realtime-vad)"
	// StatusSeated: a full-duplex agent, scored from its speech onsets
	// while seated in the conversation (floorbench agent seat).
	StatusSeated PublishedStatus = "seated agent"
	// StatusShipped: trained by floorbench (scripts/train.sh) and shipped
	// in the repository, file and spec, run by the onnx family.
	StatusShipped PublishedStatus = "shipped with floorbench"
)

// A PublishedSystem is a row of MPTB's or TurnBench's table of systems,
// or a system users ask for beside them, or floorbench's own, and how
// floorbench runs it.
type PublishedSystem struct {
	Name   string          `json:"name"`   // the heading of its section in docs/systems.md
	Tables string          `json:"tables"` // the tables that score it: "MPTB", "TurnBench", both, or "" for neither
	Status PublishedStatus `json:"status"`
	Runs   string          `json:"runs"` // how: an example spec, a family, or why it is external only
}

// PublishedSystems lists every system of MPTB's twelve (MPTB §5) and
// TurnBench's fourteen, with the text turn detectors users ask for
// beside them and floorbench's own detector, in the order of
// docs/systems.md; a test checks the two agree.
func PublishedSystems() []PublishedSystem {
	return []PublishedSystem{
		{"Energy (RMS) VAD", "MPTB, TurnBench", StatusBuiltIn, "rms, rms-endpointer"},
		{"WebRTC VAD", "MPTB", StatusBuiltIn, "webrtcvad, webrtcvad-endpointer"},
		{"Silero VAD", "MPTB", StatusBuiltIn, "silero, silero-endpointer"},
		{"Smart Turn v2", "MPTB", StatusExport, "examples/systems/smart-turn-v2.yaml"},
		{"Smart Turn v3", "TurnBench", StatusPublishedFile, "examples/systems/smart-turn-v3.yaml"},
		{"VAP", "MPTB, TurnBench", StatusExport, "examples/systems/vap.yaml, maai-vap.yaml"},
		{"Turn-1-Mini", "MPTB", StatusExport, "examples/systems/turn-1-mini.yaml"},
		{"Kyutai SVAD", "MPTB, TurnBench", StatusExternal, "a 1B streaming language model with a KV cache, no ONNX graph"},
		{"Mimi Endpointer", "MPTB, TurnBench", StatusExternal, "a PyTorch checkpoint over the Mimi codec, no ONNX file or export"},
		{"DualTurn", "MPTB", StatusExternal, "a 0.5B language model over the Mimi codec, loaded with remote code"},
		{"ESPnet Turn-Taking", "MPTB, TurnBench", StatusExternal, "reads the two speakers' mix, attributed by energy"},
		{"WavLM-Large", "MPTB, TurnBench", StatusExternal, "no published checkpoint found"},
		{"MuVAP", "MPTB", StatusExternal, "reads a camera's face tracks as well as audio"},
		{"OpenAI Server VAD", "TurnBench", StatusProviderVAD, "examples/systems/openai-server-vad.yaml"},
		{"OpenAI Semantic VAD", "TurnBench", StatusProviderVAD, "examples/systems/openai-semantic-vad.yaml"},
		{"Gemini Live", "TurnBench", StatusSeated, "agent seat, EOT only"},
		{"Moshi", "TurnBench", StatusSeated, "agent seat, EOT only"},
		{"LiveKit turn detector", "", StatusExternal, "reads text, not audio"},
		{"TEN turn detection", "", StatusExternal, "reads text, not audio"},
		{"floorgru", "", StatusShipped, "models/floorgru/floorgru.yaml"},
	}
}
