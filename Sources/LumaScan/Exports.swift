// `import LumaScan` brings in the whole engine: core types, frame sources and recognizers.
@_exported import LumaScanCapture
@_exported import LumaScanCore
@_exported import LumaScanRecognizers
