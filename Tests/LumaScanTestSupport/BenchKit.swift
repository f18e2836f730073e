// The test support builds on the bench kit (the one canvas, the code encoders, synthetic scenes and meters, the raw
// baselines and the imaging they draw with): a test that imports LumaScanTestSupport has them too.
@_exported import CLumaBenchKit
@_exported import LumaScanBenchKit
