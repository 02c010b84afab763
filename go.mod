module github.com/floorbench/floorbench

go 1.26.8

require (
	github.com/go-audio/audio v1.0.0
	github.com/go-audio/wav v1.1.0
	github.com/gopxl/beep/v2 v2.1.1
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/go-audio/riff v1.0.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
