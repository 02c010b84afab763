package detect

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/floorbench/floorbench/internal/limits"
)

// Where scripts/setup.sh's onnx component puts its files under the tools
// folder (docs/operations.md#tools), and the Silero model's pinned hash.
const (
	OnnxRuntimeLibraryPath = "onnxruntime-1.24.1/libonnxruntime.so.1"
	SileroModelPath        = "models/silero_vad_v5.onnx"
	SileroModelSHA256      = "2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f"
	setupHint              = "run scripts/setup.sh onnx"
)

// Device selects ONNX Runtime's execution provider.
type Device string

// The devices. CUDA falls back to the CPU, with a warning, where the CUDA
// provider or a GPU is missing (docs/architecture.md#detectors).
const (
	DeviceCPU  Device = "cpu"
	DeviceCUDA Device = "cuda"
)

// Runtime is where and how models run. It is not part of a system's
// identity: the same system gives the same scores on any runtime.
type Runtime struct {
	// Tools is the setup's tools folder ($FLOORBENCH_TOOLS).
	Tools string
	// Models is the folder of models a user brings ($FLOORBENCH_MODELS),
	// ${FLOORBENCH_MODELS} in a spec's model path (examples/systems).
	Models string
	// OnnxRuntime is the ONNX Runtime shared library; empty: the one the
	// setup installs under Tools.
	OnnxRuntime string
	Device      Device
	// Threads is ONNX Runtime's intra-op thread count per session.
	Threads int
	// BatchRows bounds the rows (speaker channels, of one conversation or
	// several) an ONNX model runs in one session call (Model.RunAll); 0:
	// DefaultBatchRows for the device.
	BatchRows int
	Logger    *slog.Logger
	// Limits bound the files a system reads: its model (model_bytes), an
	// external system's probability files (input_bytes); the zero Limits
	// are limits.Default.
	Limits limits.Limits
	// Answers keeps what the endpoints of realtime-vad systems answered,
	// so that a channel is sent to an endpoint once; nil keeps nothing.
	Answers AnswerCache
}

// AnswerCache keeps outside endpoints' answers by request: the identity
// hash (digest.Identity) of everything that decides the answer (the
// endpoint, its settings and the SHA-256 of the audio sent), so a stored
// one is reused as it is. It is used by several goroutines at once (the
// channels of a conversation); an error names where the answer is kept.
type AnswerCache interface {
	// Get returns the answer to request; ok is false when there is none.
	Get(ctx context.Context, request string) (data []byte, ok bool, err error)
	// Put keeps the answer to request.
	Put(ctx context.Context, request string, data []byte) error
}

// DefaultBatchRows are the rows per session call on each device when
// Runtime.BatchRows is 0 (docs/operations.md#model-batches).
var DefaultBatchRows = map[Device]int{DeviceCPU: 64, DeviceCUDA: 1024}

// batchRows is the runtime's rows per session call.
func (rt Runtime) batchRows() int {
	if rt.BatchRows > 0 {
		return rt.BatchRows
	}
	if n := DefaultBatchRows[rt.Device]; n > 0 {
		return n
	}
	return DefaultBatchRows[DeviceCPU]
}

// RuntimeFromEnv reads FLOORBENCH_TOOLS (default ~/.cache/floorbench/tools,
// as scripts/setup.sh), FLOORBENCH_MODELS, FLOORBENCH_ONNXRUNTIME and
// FLOORBENCH_DEVICE.
func RuntimeFromEnv() Runtime {
	tools := os.Getenv("FLOORBENCH_TOOLS")
	if tools == "" {
		if cache, err := os.UserCacheDir(); err == nil {
			tools = filepath.Join(cache, "floorbench", "tools")
		}
	}
	dev := Device(os.Getenv("FLOORBENCH_DEVICE"))
	if dev == "" {
		dev = DeviceCPU
	}
	return Runtime{Tools: tools, Models: os.Getenv("FLOORBENCH_MODELS"), OnnxRuntime: os.Getenv("FLOORBENCH_ONNXRUNTIME"),
		Device: dev, Threads: 1, Logger: slog.Default()}
}

func (rt Runtime) logger() *slog.Logger {
	if rt.Logger == nil {
		return slog.Default()
	}
	return rt.Logger
}

func (rt Runtime) libraryPath() string {
	if rt.OnnxRuntime != "" {
		return rt.OnnxRuntime
	}
	return filepath.Join(rt.Tools, OnnxRuntimeLibraryPath)
}

// ortEnvironment guards ONNX Runtime's process-wide environment: it is
// initialised once, from the first library path that loads.
var ortEnvironment struct {
	sync.Mutex
	library string
}

func (rt Runtime) initONNXRuntime() error {
	ortEnvironment.Lock()
	defer ortEnvironment.Unlock()
	lib := rt.libraryPath()
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("ONNX Runtime library %s not found (%s, or set FLOORBENCH_ONNXRUNTIME)", lib, setupHint)
	}
	if ort.IsInitialized() {
		if lib != ortEnvironment.library {
			rt.logger().Warn("ONNX Runtime is already loaded from another library; using it", "loaded", ortEnvironment.library, "requested", lib)
		}
		return nil
	}
	ort.SetSharedLibraryPath(lib)
	// ONNX Runtime's own log would print each failure a second time (the
	// error it returns is reported here, with context) and breaks the
	// progress bar on stderr; only fatal messages get through.
	if err := ort.InitializeEnvironment(ort.WithLogLevelFatal()); err != nil {
		return fmt.Errorf("load ONNX Runtime from %s: %w", lib, err)
	}
	ortEnvironment.library = lib
	return nil
}

// sessionOptions returns the options for a session on rt's device. cuda
// reports whether the CUDA provider was appended; when it cannot be, the
// session runs on the CPU and a warning says why.
func (rt Runtime) sessionOptions() (opts *ort.SessionOptions, cuda bool, err error) {
	opts, err = rt.cpuSessionOptions()
	if err != nil || rt.Device != DeviceCUDA {
		return opts, false, err
	}
	if err := appendCUDA(opts); err != nil {
		rt.logger().Warn("CUDA execution provider unavailable; running on CPU", "err", err)
		return opts, false, nil
	}
	return opts, true, nil
}

func (rt Runtime) cpuSessionOptions() (*ort.SessionOptions, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	threads := max(rt.Threads, 1)
	if err := errors.Join(opts.SetIntraOpNumThreads(threads), opts.SetInterOpNumThreads(1)); err != nil {
		opts.Destroy()
		return nil, err
	}
	return opts, nil
}

func appendCUDA(opts *ort.SessionOptions) error {
	cuda, err := ort.NewCUDAProviderOptions()
	if err != nil {
		return err
	}
	defer cuda.Destroy()
	return opts.AppendExecutionProviderCUDA(cuda)
}

// newSession opens a session on model with the given tensor names. A CUDA
// session that fails to start is retried on the CPU, with a warning.
func (rt Runtime) newSession(model string, inputs, outputs []string) (*ort.DynamicAdvancedSession, error) {
	if err := rt.initONNXRuntime(); err != nil {
		return nil, err
	}
	opts, cuda, err := rt.sessionOptions()
	if err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	defer opts.Destroy()
	s, err := ort.NewDynamicAdvancedSession(model, inputs, outputs, opts)
	if err != nil && cuda {
		rt.logger().Warn("CUDA session failed; running on CPU", "model", model, "err", err)
		cpu, cerr := rt.cpuSessionOptions()
		if cerr != nil {
			return nil, cerr
		}
		defer cpu.Destroy()
		s, err = ort.NewDynamicAdvancedSession(model, inputs, outputs, cpu)
	}
	if err != nil {
		return nil, fmt.Errorf("open ONNX model %s: %w", model, err)
	}
	return s, nil
}
