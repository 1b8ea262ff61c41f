//go:build coin

package main

import "github.com/lifted-dev/lifted/infer/maplp"

func init() { extraSolvers["clp"] = maplp.Clp{} }
