// Package colourpass runs colour passing as an Apache Beam pipeline: the
// map/reduce steps of package lift (Part.SignFactors and Part.SignVars, the
// map; grouping equal signatures, the shuffle; lift.NewColour, the reduce)
// on any Beam runner. The graph is split once into parts with copy nodes
// at the borders (lift.NewPartition); every round, each node's colour is
// sent to the parts that own or copy it (a CoGroupByKey with the parts'
// subscriptions), each part signs its own nodes, equal signatures are grouped
// (a GroupByKey on the signature bytes) and every group takes its smallest
// member id as its new colour. A pipeline runs RoundsPerJob rounds; the
// driver reads the colours and the class counts back and runs the next job
// until the counts stop changing, so the partition, the number of rounds and
// (after the same renumbering) the class ids are those of lift.Compress.
package colourpass
