// What `import LumaScan` gives an embedding daemon, and why each module is re-exported: the engine's API is made of
// their types, so a daemon that had to import them one by one could not call it.
// - LumaScanCore: frames, the FrameSource and Recognizer protocols, reports and their states, errors, the
//   configuration toolkit — in every signature of ScanEngine and of the configuration.
// - LumaScanCapture: the sources a daemon builds the engine on (V4L2Camera, RecordingSource, ImageFileSource,
//   SyntheticSource), device discovery and camera controls.
// - LumaScanRecognizers: the recognizers, their configurations and results (the details of the reports).
// Not re-exported: the event JSON (LumaScanEventJSON), the kiosk server (LumaScanServer), audio (LumaScanAudio) and
// the bench kit, which a daemon imports only if it uses them.
@_exported import LumaScanCapture
@_exported import LumaScanCore
@_exported import LumaScanRecognizers
