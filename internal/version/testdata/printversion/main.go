package main

import (
	"fmt"

	"github.com/floorbench/floorbench/internal/version"
)

func main() { fmt.Print(version.Code()) }
