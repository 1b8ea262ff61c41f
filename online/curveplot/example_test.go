package curveplot_test

import (
	"bytes"
	"fmt"

	"github.com/lifted-dev/lifted/online"
	"github.com/lifted-dev/lifted/online/curveplot"
)

func Example() {
	format, err := curveplot.Format("curve.svg")
	if err != nil {
		panic(err)
	}
	c := &online.Curve{Method: "sgd"}
	c.AddTest(0, 0, []float64{0}, -0.9, -0.3)
	c.AddTest(1, 0.1, []float64{0.5}, -0.7, -0.2)
	var b bytes.Buffer
	if err := curveplot.Write(&b, format, []*online.Curve{c}); err != nil {
		panic(err)
	}
	fmt.Println(format, bytes.Contains(b.Bytes(), []byte("<svg")))
	_, err = curveplot.Format("curve.txt")
	fmt.Println(err)
	// Output:
	// svg true
	// --plot curve.txt: write .png, .svg or .pdf
}
