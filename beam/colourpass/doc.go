// Package colourpass runs colour passing as an Apache Beam pipeline: the
// map/reduce steps of package lift (Part.SignFactors and Part.SignVars, the
// map; grouping equal signatures, the shuffle; lift.NewColour, the reduce)
// on any Beam runner. The graph is split once into parts with copy nodes
// at the borders (lift.NewPartition); every round, each node's colour is
// sent to the parts that own or copy it (a CoGroupByKey with the parts'
// subscriptions), each part signs its own nodes, equal signatures are grouped
// (a GroupByKey on the signature bytes) and every group takes its smallest
// member id as its new colour. A pipeline runs RoundsPerJob rounds; the
// colours go from job to job through files in the work directory and the
// driver reads the class counts and runs the next job until they stop
// changing, so the partition, the number of rounds and (after the same
// renumbering) the class ids are those of lift.Compress.
//
// Refiner.Refine takes a graph the driver holds (it is a lift.Refiner).
// Refiner.RefineEdgeList takes a sharded edge list (lift.WriteEdgeList's
// format) that only the workers read: a setup job builds the parts from the
// shards (variables split into ranges by id) and the initial colours, and a
// finish job numbers the classes and counts the compressed graph's slots,
// so the driver never holds the graph.
package colourpass
