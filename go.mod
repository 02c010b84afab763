module github.com/floorbench/floorbench

go 1.26.8

require (
	github.com/maxhawkins/go-webrtcvad v0.0.0-20210121163624-be60036f3083
	github.com/spf13/cobra v1.10.2
	github.com/yalue/onnxruntime_go v1.27.0
	go.yaml.in/yaml/v3 v3.0.4
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
